// Run directories on the host: what a crashed server left is removed at the next start-up, what a
// live server uses is not.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { config } from "@/server/config";
import { createLayout, layoutsRemoved, removeLayout, sweepOrphanCheckouts } from "./layout";
import { runnerFixture } from "./test-runs";

describe("sweepOrphanCheckouts", () => {
  const fx = runnerFixture("p-sweep");
  afterAll(() => fx.cleanup());

  it("removes the run directories of a server that is gone, keeps a live server's and anything else", async () => {
    const live = await createLayout();
    const work = path.dirname(live.dir);
    // An owner pid that cannot exist (pids are below pid_max), with what a suite may leave: a
    // directory its owner may not write into.
    const pidMax = fs.readFileSync("/proc/sys/kernel/pid_max", "utf8").trim();
    const orphan = path.join(work, `${pidMax}.1-0123456789abcdef01234567`);
    fs.mkdirSync(path.join(orphan, "src", "node_modules", "locked"), { recursive: true });
    fs.writeFileSync(path.join(orphan, "src", "node_modules", "locked", "index.js"), "x");
    fs.chmodSync(path.join(orphan, "src", "node_modules", "locked"), 0o500);
    const other = path.join(work, "kept-by-an-operator");
    fs.mkdirSync(other);
    try {
      expect(await sweepOrphanCheckouts()).toEqual([orphan]);
      expect(fs.existsSync(orphan)).toBe(false);
      expect(fs.existsSync(live.src)).toBe(true);
      expect(fs.existsSync(other)).toBe(true);
      expect(work.startsWith(config.dataDir)).toBe(true);
    } finally {
      await removeLayout(live);
    }
  });
});

describe("layoutsRemoved", () => {
  const fx = runnerFixture("p-removed");
  afterAll(() => fx.cleanup());

  it("waits for a run's directory that nobody else waits for (a run's verdict goes first) to be gone", async () => {
    const layout = await createLayout();
    for (let i = 0; i < 20; i++) {
      const dir = path.join(layout.src, `d${i}`);
      fs.mkdirSync(dir);
      for (let j = 0; j < 50; j++) fs.writeFileSync(path.join(dir, `f${j}.txt`), "x");
    }
    void removeLayout(layout);
    expect(fs.existsSync(layout.dir)).toBe(true);
    await layoutsRemoved();
    expect(fs.existsSync(layout.dir)).toBe(false);
  });
});
