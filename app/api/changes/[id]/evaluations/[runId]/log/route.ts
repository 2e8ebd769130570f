import { headFromGet } from "@/server/http";
import { evalRunLogResponse } from "@/server/changes";

export const dynamic = "force-dynamic";

export const GET = evalRunLogResponse;
export const HEAD = headFromGet(GET);
