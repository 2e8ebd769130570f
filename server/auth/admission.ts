import { resolveIdentity } from "./resolve";
import type { Identity } from "./identity";
import { rateLimitKey } from "./identity";
import { forbidden } from "@/server/errors";
import { assertSameOrigin, clientAddress, HttpError, isSafeMethod, noteIdentity, rateLimitHeaders, requestRateLimiter } from "@/server/http";

export interface Admission {
  identity: Identity;
  /** Headers every response to this request carries (X-RateLimit-*). */
  headers: Record<string, string>;
}

export interface AdmissionOptions {
  allowAdminKey?: boolean;
  /**
   * Whether a read-scoped credential is refused on non-read methods here (default). /mcp turns it
   * off: every MCP call is a POST, so the MCP area checks the scope per tool instead.
   */
  readScopeByMethod?: boolean;
}

/**
 * What runs before routing, for every surface (REST, tRPC, git): credentials, the read-scope
 * rule, CSRF for cookie callers, and the rate limit (per identity, or per address when anonymous).
 */
export async function admitRequest(req: Request, options: AdmissionOptions = {}): Promise<Admission> {
  const identity = await resolveIdentity(req, options);
  noteIdentity(identity.kind);
  const method = req.method.toUpperCase();
  const scopeByMethod = options.readScopeByMethod ?? true;
  if (scopeByMethod && identity.kind === "user" && identity.scope === "read" && !isSafeMethod(method)) {
    throw forbidden("This token is scoped to read; writing needs a read_write token", "TOKEN_SCOPE_INSUFFICIENT");
  }
  if (identity.kind === "user" && identity.via === "session" && !isSafeMethod(method)) assertSameOrigin(req);
  // Anonymous callers share one budget per address.
  const key = rateLimitKey(identity);
  const result = key ? await requestRateLimiter().limit(key) : await requestRateLimiter("anonymous").limit(`ip:${clientAddress(req) ?? "unknown"}`);
  const headers = rateLimitHeaders(result);
  if (!result.success) {
    const retryAfter = Math.max(1, Math.ceil((result.reset - Date.now()) / 1000));
    throw new HttpError(429, "Too many requests", undefined, {}, { ...headers, "Retry-After": String(retryAfter) });
  }
  return { identity, headers };
}
