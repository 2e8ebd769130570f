import { describe, expect, it } from "vitest";
import { probeIndexes, PROBES_MAX, smallestFailingPrefix } from "./prefix-search";

/**
 * A batch of `size` entries whose prefixes fail from `culprit` on, searched as the queue does: turn
 * after turn, a verdict asked for the first time is a run queued (null), known by the next turn.
 * Returns what the search found, how many turns waited for runs, and the most runs one turn queued.
 */
async function search(size: number, culprit: number, runners: number) {
  const known = new Set<number>([size - 1]);
  let waits = 0;
  let widest = 0;
  for (;;) {
    const queued = new Set<number>();
    const found = await smallestFailingPrefix(
      { index: size - 1, issues: ["whole"] },
      async (index) => {
        if (!known.has(index)) {
          queued.add(index);
          return null;
        }
        return index >= culprit ? { passed: false, issues: [`prefix ${index}`] } : { passed: true, issues: [] };
      },
      runners,
    );
    if (found) return { found, waits, widest };
    waits++;
    widest = Math.max(widest, queued.size);
    for (const index of queued) known.add(index);
  }
}

describe("the search for a failing batch's culprit (prefixes probed side by side)", () => {
  it("with one runner probes the middle, as a bisection does", () => {
    expect(probeIndexes(0, 4, 1)).toEqual([2]);
    expect(probeIndexes(0, 3, 1)).toEqual([1]);
    expect(probeIndexes(3, 4, 1)).toEqual([3]);
  });

  it("probes every suspect when they fit, else splits them into even groups", () => {
    expect(probeIndexes(0, 5, 7)).toEqual([0, 1, 2, 3, 4]);
    expect(probeIndexes(0, 63, 7)).toEqual([7, 15, 23, 31, 39, 47, 55]);
    expect(probeIndexes(10, 19, 3)).toEqual([12, 14, 17]);
  });

  it("finds the first failing prefix wherever it is, for any batch and any number of runners", async () => {
    for (const runners of [0, 1, 2, 3, 7, 64])
      for (const size of [1, 2, 3, 9, 17, 64, 100])
        for (let culprit = 0; culprit < size; culprit++) {
          const { found, widest } = await search(size, culprit, runners);
          expect(found).toEqual({ index: culprit, issues: [culprit === size - 1 ? "whole" : `prefix ${culprit}`] });
          expect(widest).toBeLessThanOrEqual(Math.min(PROBES_MAX, Math.max(1, runners)));
        }
  });

  it("waits for fewer rounds of runs the more runners there are: 64 entries take 6 with one, 2 with seven", async () => {
    const worst = async (runners: number) => {
      let most = 0;
      for (let culprit = 0; culprit < 64; culprit++) most = Math.max(most, (await search(64, culprit, runners)).waits);
      return most;
    };
    expect(await worst(1)).toBe(6);
    expect(await worst(3)).toBe(3);
    expect(await worst(7)).toBe(2);
  });
});
