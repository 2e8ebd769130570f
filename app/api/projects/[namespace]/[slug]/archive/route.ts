import { headFromGet } from "@/server/http";
import { handleArchiveRequest } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = handleArchiveRequest;
export const HEAD = headFromGet(GET);
