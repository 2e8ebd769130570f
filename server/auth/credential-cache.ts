import { registerCache } from "@/server/caches";
import { config } from "@/server/config";
import type { Identity } from "./identity";

/** A resolved bearer credential, cached by its hash so the hot path skips the database. */
export interface CachedCredential {
  identity: Identity;
  /** The user whose credentials these are (an agent's owner): the invalidation key. */
  userId: string;
  expiresAt: Date | null;
  /** The row whose lastUsedAt is maintained, if any. */
  usage?: { table: "apiToken" | "agent"; id: string };
}

const MAX_ENTRIES = 10_000;

interface Entry {
  value: CachedCredential;
  cachedAt: number;
}

interface CacheState {
  byHash: Map<string, Entry>;
  byUser: Map<string, Set<string>>;
  /** When each user's credentials were last revoked here: older lookups must not be cached. */
  revokedAt: Map<string, number>;
}

// On globalThis: Next.js loads separate module copies per entry point, and an invalidation in one
// copy must reach the lookups of the others.
const holder = globalThis as unknown as { __svcCredentialCache?: CacheState };
const state = (): CacheState =>
  (holder.__svcCredentialCache ??= { byHash: new Map(), byUser: new Map(), revokedAt: new Map() });
registerCache("auth.credentials", {
  entries: () => state().byHash.size,
  limit: MAX_ENTRIES,
  bound: "AUTH_CACHE_TTL_SECONDS per entry; the oldest go first past the limit (byUser indexes the same entries)",
});
registerCache("auth.revocations", {
  entries: () => state().revokedAt.size,
  limit: MAX_ENTRIES,
  bound: "the oldest revocation goes first past the limit",
});

export function cachedCredential(hash: string, now = Date.now()): CachedCredential | undefined {
  const { byHash } = state();
  const entry = byHash.get(hash);
  if (!entry) return undefined;
  if (now - entry.cachedAt >= config.authCacheTtlSeconds * 1000) {
    forgetHash(hash, entry.value.userId);
    return undefined;
  }
  return entry.value;
}

/** Caches a credential read from the database at `readAt`, unless it was revoked since. */
export function cacheCredential(hash: string, value: CachedCredential, readAt: number): void {
  if (config.authCacheTtlSeconds <= 0) return;
  const { byHash, byUser, revokedAt } = state();
  if ((revokedAt.get(value.userId) ?? -Infinity) >= readAt) return;
  if (byHash.size >= MAX_ENTRIES) {
    const oldest = byHash.keys().next().value;
    if (oldest !== undefined) forgetHash(oldest, byHash.get(oldest)!.value.userId);
  }
  byHash.set(hash, { value, cachedAt: Date.now() });
  let hashes = byUser.get(value.userId);
  if (!hashes) byUser.set(value.userId, (hashes = new Set()));
  hashes.add(hash);
}

function forgetHash(hash: string, userId: string): void {
  const { byHash, byUser } = state();
  byHash.delete(hash);
  const hashes = byUser.get(userId);
  hashes?.delete(hash);
  if (hashes?.size === 0) byUser.delete(userId);
}

/**
 * Drops every cached credential of a user in this process (their tokens, legacy credential, grants
 * and agents); `forgetUserCredentials` (credential-invalidation.ts) also tells other instances.
 */
export function dropUserCredentials(userId: string): void {
  const { byHash, byUser, revokedAt } = state();
  for (const hash of byUser.get(userId) ?? []) byHash.delete(hash);
  byUser.delete(userId);
  // Re-inserted so the map stays in time order and eviction drops the oldest revocation.
  revokedAt.delete(userId);
  revokedAt.set(userId, Date.now());
  if (revokedAt.size > MAX_ENTRIES) {
    const oldest = revokedAt.keys().next();
    if (!oldest.done) revokedAt.delete(oldest.value);
  }
}

/** Drops every cached credential (after missed invalidations, e.g. a lost listener connection). */
export function dropAllCredentials(): void {
  const { byHash, byUser } = state();
  byHash.clear();
  byUser.clear();
}
