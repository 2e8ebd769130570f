import { log } from "@/server/log";

/** What the pipeline knows about one request when it ends: the hook for logs (and metrics). */
export interface RequestTrace {
  requestId: string;
  method: string;
  /** The route pattern served (e.g. /api/projects/{namespace}/{slug}), never the concrete URL. */
  route?: string;
  identity: string;
  status: number;
  durationMs: number;
}

/** One JSON line per request. No URL, header or body: ids, kinds and patterns only. */
export function recordRequest(trace: RequestTrace): void {
  const level = trace.status >= 500 ? "error" : "info";
  log()[level]({ msg: "request", ...trace, durationMs: Math.round(trace.durationMs * 10) / 10 });
}
