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
}

// On globalThis: Next.js loads separate module copies per entry point, and an invalidation in one
// copy must reach the lookups of the others.
const holder = globalThis as unknown as { __svcCredentialCache?: CacheState };
const state = (): CacheState => (holder.__svcCredentialCache ??= { byHash: new Map(), byUser: new Map() });

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

export function cacheCredential(hash: string, value: CachedCredential): void {
  if (config.authCacheTtlSeconds <= 0) return;
  const { byHash, byUser } = state();
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
 * Drops every cached credential of a user (their tokens, legacy credential, grants and agents).
 * Call it after any write that revokes or changes a credential or the account: revocation takes
 * effect at once in this process; other instances see it when their entry expires
 * (AUTH_CACHE_TTL_SECONDS).
 */
export function forgetUserCredentials(userId: string): void {
  const { byHash, byUser } = state();
  for (const hash of byUser.get(userId) ?? []) byHash.delete(hash);
  byUser.delete(userId);
}
