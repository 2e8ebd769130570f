import { headFromGet } from "@/server/http";
import { handleBackupArchiveRequest, traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = traced("/api/admin/backups/{id}/archive", handleBackupArchiveRequest);
export const HEAD = headFromGet(GET);
