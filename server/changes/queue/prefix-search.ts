import type { Verdict } from "./evaluate";

/** A prefix of a batch that failed: the index of its last entry, and why. */
export interface FailingPrefix {
  index: number;
  issues: string[];
}

/** Prefixes probed side by side at most, however many runners there are (each probe costs a run). */
export const PROBES_MAX = 7;

/**
 * The prefixes a step probes when every prefix before `low` passed and the one ending at `failing`
 * failed: all of low..failing-1 when they fit in `probes`, else `probes` of them evenly spaced, so
 * the culprit is left among at most (failing - low + 1) / (probes + 1) entries.
 */
export function probeIndexes(low: number, failing: number, probes: number): number[] {
  const suspects = failing - low + 1;
  if (suspects - 1 <= probes) return Array.from({ length: suspects - 1 }, (_, offset) => low + offset);
  return Array.from({ length: probes }, (_, step) => low - 1 + Math.ceil(((step + 1) * suspects) / (probes + 1)));
}

/**
 * The smallest failing prefix of a batch whose prefix ending at `failing.index` failed: its last
 * entry is the culprit. Each step asks for every probe before reading any, so the runs they need are
 * queued together and tested side by side: as many probes as the instance has runners (1 is a
 * bisection), up to PROBES_MAX; with 7, a failing batch of 64 costs 2 suites' time rather than 6.
 * Null while a verdict it needs still runs; the same walk, taken again once it ended, reads the
 * verdicts it had.
 */
export async function smallestFailingPrefix(
  failing: FailingPrefix,
  evaluate: (index: number) => Promise<Verdict | null>,
  runners: number,
): Promise<FailingPrefix | null> {
  const probes = Math.min(PROBES_MAX, Math.max(1, runners));
  let low = 0;
  while (low < failing.index) {
    const indexes = probeIndexes(low, failing.index, probes);
    const verdicts: Array<Verdict | null> = [];
    for (const index of indexes) verdicts.push(await evaluate(index));
    if (verdicts.some((verdict) => !verdict)) return null;
    const first = verdicts.findIndex((verdict) => !verdict!.passed);
    if (first === -1) {
      low = indexes.at(-1)! + 1;
      continue;
    }
    if (first > 0) low = indexes[first - 1] + 1;
    failing = { index: indexes[first], issues: verdicts[first]!.issues };
  }
  return failing;
}
