import { config } from "@/server/config";
import { forbidden } from "@/server/errors";

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

/**
 * The hosts a browser form may legitimately come from: the request's Host, the configured public
 * address, and the proxy's X-Forwarded-Host only when the operator says a proxy sets it
 * (`TRUST_PROXY=1`); otherwise any client could name the host it likes.
 */
function ownHosts(req: Request): Set<string> {
  const hosts = new Set([(req.headers.get("host") ?? new URL(req.url).host).toLowerCase()]);
  const publicHost = hostOf(config.baseUrl);
  if (publicHost) hosts.add(publicHost);
  const forwarded = req.headers.get("x-forwarded-host");
  if (config.trustProxy && forwarded) hosts.add(forwarded.split(",")[0].trim().toLowerCase());
  return hosts;
}

/** Requires an Origin or Referer naming this service's own host (403 CSRF otherwise). */
export function assertSameOrigin(req: Request): void {
  const origin = req.headers.get("origin");
  const source = origin && origin !== "null" ? hostOf(origin) : hostOf(req.headers.get("referer"));
  if (!source || !ownHosts(req).has(source))
    throw forbidden("Cross-site request refused: Origin or Referer must name this host", "CSRF");
}
