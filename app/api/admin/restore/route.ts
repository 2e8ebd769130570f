import { handleRestoreRequest } from "@/server/api";

export const dynamic = "force-dynamic";

export const POST = handleRestoreRequest;
