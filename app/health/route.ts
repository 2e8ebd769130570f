import { SERVICE_NAME } from "@/server/health";
import { traced } from "@/server/api";
import { headFromGet } from "@/server/http";

export const dynamic = "force-dynamic";

export const GET = traced("/health", () => Response.json({ status: "ok", service: SERVICE_NAME }));
export const HEAD = headFromGet(GET);
