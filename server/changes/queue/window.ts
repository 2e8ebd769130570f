import { registerCache } from "@/server/caches";

/**
 * Entries tested together at most (one projected tree, one evaluation when it passes). A batch
 * takes every ready entry up to this, so batches grow as the queue fills: a turn costs ~200-250 ms
 * of CPU whatever its size and ~12-15 ms per entry on PGlite (bench/fleet/queue.ts), and a fleet of 100
 * agents lands in one turn rather than two.
 */
export const BATCH_MAX = 100;
/**
 * Batches tested at once, each projected on the last commit of the one below (the first on the
 * branch head): entries that arrive while a batch's suite runs are tested beside it, not after it.
 */
export const PIPELINE_MAX = 8;

/**
 * How many batches a project's queue stacks now (Zuul's window): a failure below drops everything
 * above it, tested again, so the window halves when the chain is cut and grows by one with each
 * batch that lands whole, between 1 and PIPELINE_MAX. Per process; a project starts at the most.
 */
const windows = new Map<string, number>();
const WINDOWS_MAX = 10_000;
registerCache("changes.queueWindows", {
  entries: () => windows.size,
  limit: WINDOWS_MAX,
  bound: "narrowed windows only; cleared whole past the limit",
});

export const windowOf = (projectId: string) => windows.get(projectId) ?? PIPELINE_MAX;

/**
 * Entries a batch takes: every ready one while the window is whole; after failures, 4 per step of
 * the window. A failing change poisons its whole batch (every entry tested again without it), and
 * a fleet with failing changes that batches everything ready fails nearly every batch.
 */
export const batchCap = (projectId: string) => {
  const window = windowOf(projectId);
  return window === PIPELINE_MAX ? BATCH_MAX : window * 4;
};

/** Halves the window when a chain was cut, grows it by one when a batch landed whole. */
export function resizeWindow(projectId: string, change: "halve" | "grow"): void {
  const now = windowOf(projectId);
  const next = change === "halve" ? Math.max(1, now >> 1) : Math.min(PIPELINE_MAX, now + 1);
  // Only narrowed windows are kept: every landing of every project grows one.
  if (next === PIPELINE_MAX) windows.delete(projectId);
  else {
    if (windows.size >= WINDOWS_MAX) windows.clear();
    windows.set(projectId, next);
  }
}
