import { receiveProviderWebhook } from "@/server/imports";
import { traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const POST = traced("/api/providers/github/webhook", receiveProviderWebhook);
