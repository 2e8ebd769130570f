// The orphan sweep against the host's real cgroups (skipped where we cannot make any).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cgroupParents, cgroupsKind } from "./cgroups";
import { createLimits, sweepOrphanCgroups } from "./limits";
import { OWNER_TAG, ownerAlive } from "./owner";

const kind = cgroupsKind();

describe.skipIf(kind === null)(
  `sweepOrphanCgroups${kind === null ? " (skipped: no writable cgroup hierarchy with memory and pids here)" : ""}`,
  () => {
    it("kills what a gone server's run cgroups hold and removes them; a live server's are left alone", async () => {
      // An owner pid that cannot exist (pids are below pid_max).
      const pidMax = fs.readFileSync("/proc/sys/kernel/pid_max", "utf8").trim();
      const name = `svc-runner-${pidMax}.1-${randomBytes(8).toString("hex")}`;
      const orphans = cgroupParents().map((parent) => path.join(parent, name));
      const left = spawn("sleep", ["600"], { stdio: "ignore" });
      const ended = once(left, "exit");
      for (const dir of orphans) {
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, "cgroup.procs"), String(left.pid));
      }
      const live = await createLimits(64);
      try {
        const ours = cgroupParents().flatMap((parent) =>
          fs.readdirSync(parent).filter((entry) => entry.startsWith(`svc-runner-${process.pid}.`)),
        );
        expect(ours.length).toBeGreaterThan(0);

        // Every server's start-up sweeps the host's cgroups: on a shared host (CI's two passes side by
        // side) another may sweep these orphans first, and this sweep may find other gone servers'.
        const removed = await sweepOrphanCgroups();
        const [code, signal] = await ended;
        expect({ code, signal }).toEqual({ code: null, signal: "SIGKILL" });
        for (const dir of orphans) expect(fs.existsSync(dir)).toBe(false);
        for (const dir of removed) {
          expect(fs.existsSync(dir)).toBe(false);
          const [, pid, start] = OWNER_TAG.exec(path.basename(dir)) ?? [];
          expect(ownerAlive(pid, start)).toBe(false);
        }
        for (const entry of ours) {
          expect(cgroupParents().some((parent) => fs.existsSync(path.join(parent, entry)))).toBe(true);
        }
      } finally {
        left.kill("SIGKILL");
        await live.release();
      }
    });
  },
);
