import { config } from "@/server/config";

/** Headers a browser script on an allowed origin may read (the rest stay hidden from it). */
const EXPOSED = [
  "ETag",
  "Link",
  "X-Total-Count",
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Used",
  "X-RateLimit-Reset",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
  "Location",
];
const ALLOWED_REQUEST_HEADERS = ["Authorization", "Content-Type", "If-None-Match", "X-Request-Id"];
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The request's Origin when CORS_ORIGINS names it, else undefined. */
function allowedOrigin(req: Request): string | undefined {
  const origin = req.headers.get("origin");
  return origin && config.corsOrigins.includes(origin) ? origin : undefined;
}

/**
 * CORS for bearer callers on the named origins: never `Access-Control-Allow-Credentials`, so a
 * browser never sends the session cookie across origins (cookie callers stay same-origin, CSRF-checked).
 */
export function corsHeaders(req: Request): Record<string, string> {
  const origin = allowedOrigin(req);
  if (!origin) return config.corsOrigins.length ? { Vary: "Origin" } : {};
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED.join(", "), Vary: "Origin" };
}

/** A CORS preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin: the headers that admit it. */
export function preflightHeaders(req: Request, allowedMethods: string[]): Record<string, string> {
  if (!req.headers.get("access-control-request-method") || !allowedOrigin(req)) return {};
  return {
    ...corsHeaders(req),
    "Access-Control-Allow-Methods": allowedMethods.join(", "),
    "Access-Control-Allow-Headers": ALLOWED_REQUEST_HEADERS.join(", "),
    "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}
