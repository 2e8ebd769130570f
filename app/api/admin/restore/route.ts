import { handleRestoreRequest, traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const POST = traced("/api/admin/restore", handleRestoreRequest);
