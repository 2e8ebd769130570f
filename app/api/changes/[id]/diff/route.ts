import { headFromGet } from "@/server/http";
import { handleChangeDiffRequest } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = handleChangeDiffRequest;
export const HEAD = headFromGet(GET);
