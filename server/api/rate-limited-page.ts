/** Where a page render that the rate limiter refused sends the browser: a page that answers 429. */
export const RATE_LIMITED_PAGE = "/too-many-requests";

const RETRY_SECONDS_MAX = 3600;

/** The path to send a refused page view to, carrying how long to wait. */
export const rateLimitedPageFor = (retryAfterSeconds: number) =>
  `${RATE_LIMITED_PAGE}?retry=${Math.min(RETRY_SECONDS_MAX, Math.max(1, Math.ceil(retryAfterSeconds)))}`;

/**
 * GET /too-many-requests: a page render cannot choose its status (Next.js offers only 401, 403
 * and 404), so a rate-limited page view lands here, a plain 429 with Retry-After.
 */
export function handleRateLimitedPage(req: Request): Response {
  const asked = Number(new URL(req.url).searchParams.get("retry"));
  const retry = Number.isInteger(asked) && asked >= 1 && asked <= RETRY_SECONDS_MAX ? asked : 60;
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many requests</title></head>` +
    `<body><main><h1>Too many requests</h1><p>You sent more requests than this service takes in a minute. Try again in ${retry} seconds.</p><p><a href="/">Home</a></p></main></body></html>`;
  return new Response(body, {
    status: 429,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Retry-After": String(retry),
      "Cache-Control": "no-store",
      "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    },
  });
}
