import { session } from "@/server/auth";
export const Page = session;
