import { admitRequest } from "@/server/auth";
import { unauthenticated } from "@/server/errors";
import { errorResponse } from "@/server/http";
import { exposition, instrumentRequest } from "@/server/metrics";
import { assertAdmin } from "@/server/trpc";
import { handleRestRequest } from "./rest";

const METRICS_ROUTE = "/api/admin/metrics";

const wantsJson = (req: Request) => (req.headers.get("accept") ?? "").includes("application/json");

/**
 * GET /api/admin/metrics. The JSON form is the REST procedure `admin.metrics`; the Prometheus text
 * exposition is not JSON, so it is answered here, behind the same admission gate and admin rule.
 */
export function handleMetricsRequest(req: Request): Promise<Response> {
  if (req.method.toUpperCase() !== "GET" || wantsJson(req)) return handleRestRequest(req);
  return instrumentRequest(req, () => METRICS_ROUTE, async () => {
    let headers: Record<string, string> = {};
    try {
      const admission = await admitRequest(req, { allowAdminKey: true });
      headers = admission.headers;
      if (admission.identity.kind === "anonymous") throw unauthenticated();
      assertAdmin(admission.identity);
      const { contentType, text } = await exposition();
      return new Response(text, { headers: { ...headers, "content-type": contentType, "cache-control": "no-store" } });
    } catch (error) {
      return errorResponse(error, headers);
    }
  });
}
