import { receiveProviderWebhook } from "@/server/imports";

export const dynamic = "force-dynamic";

export const POST = receiveProviderWebhook;
