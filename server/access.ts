import { registerCache } from "@/server/caches";
import { config } from "@/server/config";
import { announceInvalidation, onInvalidation } from "@/server/db";
import { log } from "@/server/log";

/** The access levels of the spec, lowest first; the effective level is the highest grant. */
export const ACCESS_LEVELS = ["none", "read", "write", "admin", "owner"] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];
/** A level some grant gives: every level but none. */
export type GrantedLevel = Exclude<AccessLevel, "none">;

const rank = (level: AccessLevel) => ACCESS_LEVELS.indexOf(level);

export const atLeast = (level: AccessLevel, needed: AccessLevel) => rank(level) >= rank(needed);

export const highest = (levels: AccessLevel[]): AccessLevel =>
  levels.reduce<AccessLevel>((best, level) => (rank(level) > rank(best) ? level : best), "none");

const MAX_CACHED = 10_000;
const TOPIC = "access";

interface GrantCache {
  entries: Map<string, { grants: unknown; cachedAt: number }>;
  /** Bumped by every grant change: a lookup that began before one is not cached. */
  generation: number;
}

// On globalThis: Next.js loads separate module copies per entry point, and a grant change in one
// copy must reach the lookups of the others.
const holder = globalThis as unknown as { __svcGrantCache?: GrantCache };
const cache: GrantCache = (holder.__svcGrantCache ??= { entries: new Map(), generation: 0 });
registerCache("access.grants", {
  entries: () => cache.entries.size,
  limit: MAX_CACHED,
  bound: "AUTH_CACHE_TTL_SECONDS per entry; the oldest go first past the limit; cleared by any grant change",
});

function dropAllGrants(): void {
  cache.generation++;
  cache.entries.clear();
}

onInvalidation(TOPIC, { drop: dropAllGrants, dropAll: dropAllGrants });

/**
 * Grants of a user on a project (or what decides them, such as a project's row), read through a
 * per-instance cache: a read on the hot path should not cost three queries. AUTH_CACHE_TTL_SECONDS
 * bounds an entry's life (0 turns the cache off); `keep` says whether a loaded value may be cached.
 */
export async function cachedGrants<T>(
  key: string,
  load: () => Promise<T>,
  keep: (value: T) => boolean = () => true,
): Promise<T> {
  const ttlMs = config.authCacheTtlSeconds * 1000;
  const hit = cache.entries.get(key);
  if (hit && Date.now() - hit.cachedAt < ttlMs) return hit.grants as T;
  const generation = cache.generation;
  const cachedAt = Date.now();
  const grants = await load();
  if (ttlMs > 0 && generation === cache.generation && keep(grants)) {
    if (cache.entries.size >= MAX_CACHED) cache.entries.delete(cache.entries.keys().next().value!);
    cache.entries.set(key, { grants, cachedAt });
  }
  return grants;
}

/** Whose access a grant change may have ended: these users anywhere, anyone on these projects or on the projects of these organizations. */
export interface AccessLoss {
  userIds?: string[];
  projectIds?: string[];
  orgIds?: string[];
}

type AccessLossListener = (loss: AccessLoss) => Promise<void>;

// On globalThis, as the cache: a listener registered by one module copy must hear the changes of another.
const listeners = ((globalThis as unknown as { __svcAccessLoss?: Map<string, AccessLossListener> }).__svcAccessLoss ??=
  new Map<string, AccessLossListener>());

/**
 * Lets an area settle what lived on someone's access when a grant change may have ended it
 * (workspace keys record `access_lost`), without the area that changed the grant importing it.
 * `name` makes registration idempotent across module copies.
 */
export function onAccessLoss(name: string, listener: AccessLossListener): void {
  listeners.set(name, listener);
}

/**
 * Call after any grant change has committed (members, teams, team grants, collaborators): this
 * instance forgets every cached grant at once and, on PostgreSQL, every other instance does too.
 * With `loss` (the change may have taken access away), the listeners settle it before this answers;
 * a listener's failure is logged, not thrown: the grant change itself has committed.
 */
export async function forgetGrants(loss?: AccessLoss): Promise<void> {
  dropAllGrants();
  void announceInvalidation(TOPIC, "*");
  if (!loss) return;
  for (const [name, listener] of listeners) {
    await listener(loss).catch((error: unknown) =>
      log().error({ err: error, listener: name }, "settling a loss of access failed"),
    );
  }
}
