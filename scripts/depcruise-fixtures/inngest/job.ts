import { receiveProviderWebhook } from "@/server/imports";
export const job = receiveProviderWebhook;
