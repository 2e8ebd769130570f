import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The young generation's size when `npm start` (server.mjs) sets the heap's flags, against its size
// when the process started: the flags bound only growth to come, so they must be set before the
// server's modules load (heap-flags.mjs). The probe stops the process as the flags are set.
describe("the production server's heap flags", () => {
  it("are set before its modules load: the young generation is still at its first size", () => {
    const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-heap-flags-")), "probe.mjs");
    fs.writeFileSync(
      probe,
      `import v8 from "node:v8";
      const youngMb = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size / 1048576;
      const atStart = youngMb();
      const setFlags = v8.setFlagsFromString;
      v8.setFlagsFromString = (flag) => {
        if (flag.startsWith("--max-semi-space-size")) {
          process.stdout.write(JSON.stringify({ atStart, atFlags: youngMb() }));
          process.exit(0);
        }
        setFlags(flag);
      };`,
    );
    const run = spawnSync(process.execPath, ["--import", probe, "server.mjs"], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, PORT: "0" },
    });
    fs.rmSync(path.dirname(probe), { recursive: true });
    expect(run.stdout, run.stderr).not.toBe("");
    const { atStart, atFlags } = JSON.parse(run.stdout) as { atStart: number; atFlags: number };
    // Set after server.mjs's imports: 8 MB against 1 on Node 24 (4 with the flags' module imported
    // first beside the others: they load and link before any of them runs).
    expect(atFlags).toBe(atStart);
  }, 70_000);
});

// Maglev's code and metadata cost the server ~9 MB resident under a fleet on Node 24 (heap-flags.mjs).
// The probe runs a hot function with `--maglev` given on the command line: without the server's flags
// V8 compiles it with Maglev; with them, set at run time as server.mjs sets them, it does not. The
// compilers run on the probe's own thread (`--no-concurrent-recompilation`): compiled on a background
// thread, the function was still waiting for its Maglev code when read, one run in three. Node 22's V8
// compiles nothing with Maglev even when asked: there the test is skipped.
describe("the production server's compiler flags", () => {
  /** The bit of V8's `%GetOptimizationStatus` that says Maglev compiled the function (kMaglevved). */
  const MAGLEV_COMPILED = 1 << 5;

  const tiers = (imports: string[]) => {
    const run = spawnSync(
      process.execPath,
      [
        "--maglev",
        "--no-concurrent-recompilation",
        "--allow-natives-syntax",
        ...imports.flatMap((module) => ["--import", module]),
        "-e",
        `function add(a, b) { return a + b; }
        let sum = 0;
        for (let i = 0; i < 5000; i++) sum += add(i, 1);
        const status = %GetOptimizationStatus(add);
        process.stdout.write(JSON.stringify({ maglev: (status & ${MAGLEV_COMPILED}) !== 0, sum }));`,
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(run.stdout, run.stderr).not.toBe("");
    return JSON.parse(run.stdout) as { maglev: boolean };
  };

  const nodeMajor = Number(process.versions.node.split(".")[0]);

  it.skipIf(nodeMajor < 24)(
    "leave Maglev off: a hot function is not compiled by it",
    () => {
      expect(tiers([]).maglev).toBe(true);
      expect(tiers([path.resolve("heap-flags.mjs")]).maglev).toBe(false);
    },
    30_000,
  );
});
