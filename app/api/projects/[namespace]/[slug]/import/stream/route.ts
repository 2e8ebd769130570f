import { headFromGet } from "@/server/http";
import { importStreamResponse } from "@/server/imports";
import { traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = traced("/api/projects/{namespace}/{slug}/import/stream", importStreamResponse);
export const HEAD = headFromGet(GET);
