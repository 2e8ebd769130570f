import { client } from "@/server/db/client";
import { other } from "./other";
export const helper = [client, other];
