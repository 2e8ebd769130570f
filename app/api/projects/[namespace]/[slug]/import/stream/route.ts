import { headFromGet } from "@/server/http";
import { importStreamResponse } from "@/server/imports";

export const dynamic = "force-dynamic";

export const GET = importStreamResponse;
export const HEAD = headFromGet(GET);
