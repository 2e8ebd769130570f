import { log, noWaits, withRequestLog, type RequestWaits } from "@/server/log";
import { requestIdOf, withTraceNotes, type TraceNotes } from "@/server/http";

/** What the pipeline knows about one request when it ends: the hook for logs (and metrics). */
export interface RequestTrace {
  requestId: string;
  method: string;
  /** The route pattern served (e.g. /api/projects/{namespace}/{slug}), never the concrete URL. */
  route?: string;
  identity: string;
  status: number;
  durationMs: number;
  /** The MCP tools the request called. */
  tools?: string[];
  /** What it waited on (the embedded database's thread, ref locks). */
  waits?: RequestWaits;
}

/** One JSON line per request. No URL, header or body: ids, kinds and patterns only. */
export function recordRequest(trace: RequestTrace): void {
  const level = trace.status >= 500 ? "error" : "info";
  const { waits, ...rest } = trace;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  log()[level]({
    msg: "request",
    ...rest,
    durationMs: round(trace.durationMs),
    ...(waits?.dbCalls ? { dbMs: round(waits.dbMs), dbCalls: waits.dbCalls } : {}),
    ...(waits?.locks ? { lockMs: round(waits.lockMs), locks: waits.locks } : {}),
  });
}

type Handler = (req: Request) => Response | Promise<Response>;

/** The answer with its X-Request-Id (a Response whose headers are immutable is copied). */
function withRequestId(response: Response, requestId: string): Response {
  try {
    response.headers.set("X-Request-Id", requestId);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set("X-Request-Id", requestId);
    return copy;
  }
}

/**
 * A plain route handler (outside the REST pipeline, which does the same itself) with what every
 * answer gets: an X-Request-Id (a valid incoming one is echoed) and one log line naming the route
 * pattern, the identity kind the admission gate found and, for /mcp, the tools called.
 */
export function traced(
  route: string | ((req: Request) => string),
  handler: Handler,
): (req: Request) => Promise<Response> {
  return async (req) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const notes: TraceNotes = {};
    const waits = noWaits();
    let status = 500;
    try {
      const response = withRequestId(
        await withRequestLog(requestId, async () => withTraceNotes(notes, () => handler(req)), waits),
        requestId,
      );
      status = response.status;
      return response;
    } finally {
      recordRequest({
        requestId,
        method: req.method.toUpperCase(),
        route: typeof route === "string" ? route : route(req),
        identity: notes.identity ?? "anonymous",
        status,
        durationMs: performance.now() - started,
        ...(notes.tools ? { tools: notes.tools } : {}),
        waits,
      });
    }
  };
}
