import { headFromGet } from "@/server/http";
import { changeEventsResponse } from "@/server/changes";

export const dynamic = "force-dynamic";

export const GET = changeEventsResponse;
export const HEAD = headFromGet(GET);
