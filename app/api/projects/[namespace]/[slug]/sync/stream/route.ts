import { syncStreamResponse } from "@/server/imports";

export const dynamic = "force-dynamic";

export const GET = syncStreamResponse;
