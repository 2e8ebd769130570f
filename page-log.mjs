// The request log line of a web page, written by server.mjs once the answer is sent: a page's
// final status is known neither to proxy.ts nor to the render. The same line as recordRequest
// (server/api/request-log.ts) and server/log.ts write; this file runs outside Next.js, so it
// builds its own pino logger at LOG_LEVEL.
import pino from "pino";

/**
 * Paths whose route handlers log their own line (the REST pipeline and `traced()`), and static
 * files. Everything else is a page (or a page's RSC fetch, server action or form post route).
 */
const NOT_PAGES =
  /^\/(api|mcp|oauth|\.well-known|health|logout|too-many-requests|_next|git-http)(\/|$)|^\/(style\.css|favicon\.(ico|svg))$|^\/@[^/]+\/[^/]+(\/workspaces\/[^/]+)?\.git(\/|$)/;

/** server/auth/session-cookie.ts's SESSION_COOKIE: its presence is all this cheap check knows. */
const SESSION_COOKIE = /(^|;\s*)svc_session=/;

let logger;
/** The front's own structured log (server.mjs's lines too): the same JSON lines as server/log.ts. */
export const log = () => (logger ??= pino({ level: process.env.LOG_LEVEL || "info", base: { service: "svc-forge" } }));

/** Logs one line when the answer to a page request has been sent; other requests are left alone. */
export function logPageRequest(req, res) {
  const pathname = (req.url ?? "/").split("?")[0];
  if (NOT_PAGES.test(pathname)) return;
  const started = performance.now();
  res.once("finish", () => {
    const requestId = res.getHeader("x-request-id");
    if (typeof requestId !== "string") return;
    const status = res.statusCode;
    log()[status >= 500 ? "error" : "info"]({
      msg: "request",
      requestId,
      method: (req.method ?? "GET").toUpperCase(),
      route: "page",
      identity: SESSION_COOKIE.test(req.headers.cookie ?? "") ? "session" : "anonymous",
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    });
  });
}
