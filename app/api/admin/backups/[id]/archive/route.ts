import { headFromGet } from "@/server/http";
import { handleBackupArchiveRequest } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = handleBackupArchiveRequest;
export const HEAD = headFromGet(GET);
