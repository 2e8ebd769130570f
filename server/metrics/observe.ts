import { withCallerAddress } from "@/server/audit";
import { metrics } from "./registry";

/** Maps a request to its route pattern (`/api/projects/{namespace}/{slug}`), never the raw path. */
export type RoutePatternOf = (method: string, pathname: string) => string;

/**
 * Runs one API request: counts it and times it under its route pattern (a bounded label set), and
 * keeps the caller's address in scope for the audit rows the request writes.
 */
export async function instrumentRequest(
  req: Request,
  routeOf: RoutePatternOf,
  handle: () => Promise<Response>,
): Promise<Response> {
  const started = process.hrtime.bigint();
  const response = await withCallerAddress(req, handle);
  const method = req.method.toUpperCase();
  const route = routeOf(method, new URL(req.url).pathname);
  const { httpRequests, httpDuration } = metrics();
  httpRequests.inc({ method, route, status: String(response.status) });
  httpDuration.observe({ method, route }, Number(process.hrtime.bigint() - started) / 1e9);
  return response;
}

/** One git smart-HTTP request (info/refs, upload-pack or receive-pack). */
export function countGitRequest(service: string): void {
  metrics().gitRequests.inc({ service });
}
