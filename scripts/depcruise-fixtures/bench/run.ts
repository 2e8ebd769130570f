import { client } from "@/server/db/client";
export const run = client;
