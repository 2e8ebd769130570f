import { headFromGet } from "@/server/http";
import { syncStreamResponse } from "@/server/imports";

export const dynamic = "force-dynamic";

export const GET = syncStreamResponse;
export const HEAD = headFromGet(GET);
