import { SERVICE_NAME } from "@/server/health";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ status: "ok", service: SERVICE_NAME });
}
export const HEAD = GET;
