import { forbidden } from "./errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const isSafeMethod = (method: string) => SAFE_METHODS.has(method.toUpperCase());

function hostOf(value: string | null): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Requires an Origin or Referer naming the request's own host (403 CSRF otherwise). */
export function assertSameOrigin(req: Request): void {
  const host = (req.headers.get("x-forwarded-host") ?? req.headers.get("host") ?? new URL(req.url).host).toLowerCase();
  const origin = req.headers.get("origin");
  const source = origin && origin !== "null" ? hostOf(origin) : hostOf(req.headers.get("referer"));
  if (!source || source !== host) throw forbidden("Cross-site request refused: Origin or Referer must name this host", "CSRF");
}
