import { openApiDocument, traced } from "@/server/api";
import { headFromGet } from "@/server/http";

export const dynamic = "force-dynamic";

export const GET = traced("/api/openapi.json", () => Response.json(openApiDocument()));
export const HEAD = headFromGet(GET);
