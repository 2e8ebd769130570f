import { db } from "@/server/db";
export const receiveProviderWebhook = db;
