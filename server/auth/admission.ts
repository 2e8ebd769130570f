import { resolveIdentity } from "./resolve";
import type { Identity } from "./identity";
import { rateLimitKey } from "./identity";
import { DomainError, forbidden } from "@/server/errors";
import {
  assertAuthenticationAllowed,
  assertSameOrigin,
  clientAddress,
  countFailedAuthentication,
  isSafeMethod,
  noteIdentity,
  rateLimited,
  rateLimitHeaders,
  requestRateLimiter,
} from "@/server/http";

export interface Admission {
  identity: Identity;
  /** Headers every response to this request carries (X-RateLimit-*, RateLimit-Policy, RateLimit). */
  headers: Record<string, string>;
  /**
   * Gives the request back to the caller's budget (a conditional read answered 304 costs nothing,
   * as on GitHub) and answers the headers for the answer.
   */
  refund(): Promise<Record<string, string>>;
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
 * Failed authentications count against the caller's address; over budget, 429 before any lookup.
 */
export async function admitRequest(req: Request, options: AdmissionOptions = {}): Promise<Admission> {
  const address = clientAddress(req);
  assertAuthenticationAllowed(address);
  const identity = await resolveIdentity(req, options).catch(async (error: unknown) => {
    if (error instanceof DomainError && error.kind === "unauthenticated") await countFailedAuthentication(address);
    throw error;
  });
  noteIdentity(identity.kind);
  const method = req.method.toUpperCase();
  const scopeByMethod = options.readScopeByMethod ?? true;
  if (scopeByMethod && identity.kind === "user" && identity.scope === "read" && !isSafeMethod(method)) {
    throw forbidden("This token is scoped to read; writing needs a read_write token", "TOKEN_SCOPE_INSUFFICIENT");
  }
  if (identity.kind === "user" && identity.via === "session" && !isSafeMethod(method)) assertSameOrigin(req);
  // Anonymous callers share one budget per address.
  const identityKey = rateLimitKey(identity);
  const limiter = identityKey ? requestRateLimiter() : requestRateLimiter("anonymous");
  const key = identityKey ?? `ip:${address ?? "unknown"}`;
  const result = await limiter.limit(key);
  if (!result.success) throw rateLimited(result);
  const refund = async () => {
    await limiter.refund(key);
    return rateLimitHeaders({ ...result, remaining: Math.min(result.limit, result.remaining + 1) });
  };
  return { identity, headers: rateLimitHeaders(result), refund };
}
