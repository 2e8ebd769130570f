import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cacheReports } from "@/server/caches";
import { BATCH_MAX, batchCap, PIPELINE_MAX, resizeWindow, windowOf } from "./window";

const kept = () => cacheReports().find((cache) => cache.name === "changes.queueWindows")!.entries;

describe("the queue's window (Zuul's: halve on a cut chain, grow by one per whole landing)", () => {
  it("starts whole: every ready entry up to BATCH_MAX, PIPELINE_MAX batches stacked", () => {
    const project = randomUUID();
    expect(windowOf(project)).toBe(PIPELINE_MAX);
    expect(batchCap(project)).toBe(BATCH_MAX);
  });

  it("halves down to one batch of 4 entries, then grows back one per landing, and forgets it when whole", () => {
    const project = randomUUID();
    const before = kept();
    const seen: Array<[number, number]> = [];
    for (let i = 0; i < 5; i++) {
      resizeWindow(project, "halve");
      seen.push([windowOf(project), batchCap(project)]);
    }
    expect(seen).toEqual([
      [4, 16],
      [2, 8],
      [1, 4],
      [1, 4],
      [1, 4],
    ]);
    expect(kept()).toBe(before + 1);
    const grown: number[] = [];
    for (let i = 0; i < PIPELINE_MAX; i++) {
      resizeWindow(project, "grow");
      grown.push(windowOf(project));
    }
    expect(grown).toEqual([2, 3, 4, 5, 6, 7, 8, 8]);
    expect(batchCap(project)).toBe(BATCH_MAX);
    expect(kept()).toBe(before);
  });

  it("keeps one project's narrowing to itself", () => {
    const [a, b] = [randomUUID(), randomUUID()];
    resizeWindow(a, "halve");
    expect(windowOf(a)).toBe(PIPELINE_MAX / 2);
    expect(windowOf(b)).toBe(PIPELINE_MAX);
  });
});
