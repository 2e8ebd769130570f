import { registerCache } from "@/server/caches";

/**
 * Submodule checks an import's fetch step started for its swap step, by staging repository: the
 * check runs across the step boundary and beside the swap's transaction instead of before them.
 * A swap step that finds none (a restart between the steps, or the step running on another
 * instance) checks again, so a check no swap step took on this instance is forgotten after
 * STARTED_CHECK_KEPT_MS, looked at whenever another starts.
 */
export const STARTED_CHECK_KEPT_MS = 10 * 60_000;
const started = new Map<string, { check: Promise<void>; at: number }>();
registerCache("imports.startedChecks", {
  entries: () => started.size,
  limit: null,
  bound: `taken by the import's swap step; forgotten ${STARTED_CHECK_KEPT_MS / 60_000} minutes after it started`,
});

/** Keeps the check the fetch step started for `staging`'s swap step; forgets the ones no step took in time. */
export function keepStartedCheck(staging: string, check: Promise<void>): void {
  const now = Date.now();
  for (const [key, entry] of started) if (now - entry.at > STARTED_CHECK_KEPT_MS) started.delete(key);
  started.set(staging, { check, at: now });
}

/** The check started for `staging`, once: null when none was (or it was forgotten). */
export function takeStartedCheck(staging: string): Promise<void> | null {
  const entry = started.get(staging);
  started.delete(staging);
  return entry?.check ?? null;
}
