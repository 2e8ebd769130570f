import type { Meta } from "@/server/trpc";

/** Error statuses and the codes each can carry, for one operation of the document. */
export type ErrorStatuses = Map<number, Set<string>>;

const BODYLESS = new Set(["GET", "HEAD"]);

const REASONS: Record<number, string> = {
  304: "Not modified (the If-None-Match ETag still names the current representation)",
  400: "Bad request",
  401: "No valid credential (no `code`), or SESSION_EXPIRED",
  403: "Forbidden",
  404: "Not found (a private project the caller cannot read is indistinguishable from a missing one)",
  409: "Conflict",
  410: "Gone",
  413: "Payload too large",
  415: "Unsupported media type: this route takes JSON bodies",
  422: "Understood but cannot be applied",
  429: "Too many requests (`Retry-After`, `X-RateLimit-*`)",
  500: "Server error",
  501: "Not configured on this instance",
  502: "Upstream call failed",
  503: "A dependency is unhealthy, or an optional binding is absent",
  504: "Operation exceeded its bound",
};

export const reasonOf = (status: number): string => REASONS[status] ?? "Error";

function add(statuses: ErrorStatuses, status: number, codes: readonly string[] = []): void {
  const set = statuses.get(status) ?? new Set<string>();
  for (const code of codes) set.add(code);
  statuses.set(status, set);
}

/**
 * The error statuses an operation can answer: those every route shares, derived from the method,
 * the path and the procedure kind (`meta.access`), plus what the procedure declares in
 * `meta.errors` (its domain's refusals). The REST pipeline's own refusals are the shared part:
 * malformed URL or input (400), credentials (401), read scope and CSRF on writes (403), the body
 * cap and content type on writes (413, 415), the rate limit (429).
 */
export function errorStatusesOf(method: string, path: string, meta: Meta): ErrorStatuses {
  const statuses: ErrorStatuses = new Map();
  const writes = !BODYLESS.has(method.toUpperCase());
  add(statuses, 400, ["VALIDATION_ERROR"]);
  add(statuses, 401, meta.access === "public" ? [] : ["SESSION_EXPIRED"]);
  if (writes) add(statuses, 403, ["TOKEN_SCOPE_INSUFFICIENT", "CSRF"]);
  if (meta.access === "session") add(statuses, 403, ["SESSION_REQUIRED"]);
  if (meta.access === "admin") add(statuses, 403, ["ADMIN_REQUIRES_DIRECT_CREDENTIAL"]);
  if (path.includes("{")) add(statuses, 404);
  if (writes) {
    add(statuses, 413, ["PAYLOAD_TOO_LARGE"]);
    add(statuses, 415, ["UNSUPPORTED_MEDIA_TYPE"]);
  }
  add(statuses, 429);
  add(statuses, 500, ["INTERNAL_ERROR"]);
  for (const [status, codes] of Object.entries(meta.errors ?? {})) add(statuses, Number(status), codes ?? []);
  return new Map([...statuses].sort(([a], [b]) => a - b));
}
