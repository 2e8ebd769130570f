import { session } from "@/server/auth/session";
export const trpc = session;
