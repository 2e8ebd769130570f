import { registerCache } from "@/server/caches";
import { rateLimited, requestRateLimiter, type RateLimitResult } from "./rate-limit";

/**
 * Failed authentications are counted per caller address on the anonymous callers' budget
 * (RATE_LIMIT_ANONYMOUS_PER_MINUTE), under a key of their own. Once an address has used it up,
 * this instance refuses its requests with 429 before looking any credential up, until the window
 * resets. The refusal is remembered here, so the check costs no limiter round trip; with Upstash
 * the count itself is shared, and each instance learns of the block at its next failure.
 */
const holder = globalThis as unknown as { __svcAuthFailureBlocks?: Map<string, RateLimitResult> };
const blocks = () => (holder.__svcAuthFailureBlocks ??= new Map<string, RateLimitResult>());
const keyOf = (address: string | null) => `auth-failed:${address ?? "unknown"}`;
const MAX_BLOCKS = 100_000;
registerCache("http.authFailureBlocks", {
  entries: () => blocks().size,
  limit: MAX_BLOCKS,
  bound: "expired blocks are dropped past the limit; a block lasts until its window resets",
});

/** Throws the 429 when the address is over its budget of failed authentications. */
export function assertAuthenticationAllowed(address: string | null): void {
  const key = keyOf(address);
  const blocked = blocks().get(key);
  if (!blocked) return;
  if (blocked.reset > Date.now()) throw rateLimited(blocked);
  blocks().delete(key);
}

/** Counts one failed authentication from the address. */
export async function countFailedAuthentication(address: string | null): Promise<void> {
  const key = keyOf(address);
  const result = await requestRateLimiter("anonymous").limit(key);
  if (result.success && result.remaining > 0) return;
  const all = blocks();
  if (all.size >= MAX_BLOCKS) for (const [stale, value] of all) if (value.reset <= Date.now()) all.delete(stale);
  all.set(key, { ...result, success: false, remaining: 0 });
}
