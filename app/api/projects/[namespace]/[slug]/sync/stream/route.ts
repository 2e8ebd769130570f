import { headFromGet } from "@/server/http";
import { syncStreamResponse } from "@/server/imports";
import { traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = traced("/api/projects/{namespace}/{slug}/sync/stream", syncStreamResponse);
export const HEAD = headFromGet(GET);
