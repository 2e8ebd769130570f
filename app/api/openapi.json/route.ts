import { openApiDocument } from "@/server/api";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json(openApiDocument());
}
export const HEAD = GET;
