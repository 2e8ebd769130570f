import { start } from "@/server/runtime/start";
export const register = start;
