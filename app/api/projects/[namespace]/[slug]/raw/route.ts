import { headFromGet } from "@/server/http";
import { handleRawRequest } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = handleRawRequest;
export const HEAD = headFromGet(GET);
