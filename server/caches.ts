/**
 * Every process-wide cache, map and registry that grows with use says here how big it is and how
 * big it may get (GET /api/admin/caches reports them beside the process's memory). Each registers
 * where it is defined, with its bound, and is bounded there by size or age: a server that agents
 * drive all day must not grow without end (bench/soak measures it).
 */
export interface CacheReport {
  name: string;
  /** What it holds now, in its own unit (entries, unless `unit` says otherwise). */
  entries: number;
  /** The most it holds (by size), or null when only age or its users' own limits bound it (`bound` says which). */
  limit: number | null;
  unit: string;
  /** How it is bounded, in words. */
  bound: string;
  /** For a cache of reads: how many it could not answer since the process started (each was read again). */
  misses?: number;
}

type Registered = Omit<CacheReport, "entries" | "misses"> & { entries: () => number; misses?: () => number };

// On globalThis: Next.js loads separate module copies per entry point, and each copy of a module
// registers its own structure under the same name (the last registration answers).
const holder = globalThis as unknown as { __svcCaches?: Map<string, Registered> };
const registered = () => (holder.__svcCaches ??= new Map<string, Registered>());

const shared = globalThis as unknown as { __svcProcessWide?: Map<string, unknown> };

/**
 * The one structure of `name` in this process, made by `create` on first use: each module copy of
 * the build that asks for it gets the same, so a cache is held once, not once per copy (a soak found
 * a second parsed-object cache filling beside the reported one).
 */
export function processWide<T>(name: string, create: () => T): T {
  const structures = (shared.__svcProcessWide ??= new Map<string, unknown>());
  if (!structures.has(name)) structures.set(name, create());
  return structures.get(name) as T;
}

/** Registers a process-wide structure (once per module copy, at load). */
export function registerCache(
  name: string,
  report: { entries: () => number; limit: number | null; bound: string; unit?: string; misses?: () => number },
): void {
  registered().set(name, { name, unit: "entries", ...report });
}

/** Every registered structure's size, by name. */
export function cacheReports(): CacheReport[] {
  return [...registered().values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ entries, misses, ...rest }) => ({ ...rest, entries: entries(), ...(misses && { misses: misses() }) }));
}
