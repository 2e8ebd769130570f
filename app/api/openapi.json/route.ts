import { openApiDocument } from "@/server/http/openapi";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json(openApiDocument());
}
