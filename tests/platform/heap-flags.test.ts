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

// Maglev's and Sparkplug's code and metadata cost the server ~9 and ~10 MB resident under a fleet on
// Node 24 (heap-flags.mjs). The probe runs a warm function with the compiler asked for on the command
// line: without the server's flags V8 compiles it so; with them, set at run time as server.mjs sets
// them, it does not. The compilers run on the probe's own thread (`--no-concurrent-recompilation`):
// compiled on a background thread, the function was still waiting for its Maglev code when read, one
// run in three. Node 22's V8 compiles neither this early even when asked: there the tests are skipped.
describe("the production server's compiler flags", () => {
  /** Bits of V8's `%GetOptimizationStatus`: Maglev compiled the function (kMaglevved), it has baseline code (kBaseline). */
  const MAGLEV_COMPILED = 1 << 5;
  const BASELINE_CODE = 1 << 15;

  // A file, not `-e`: V8 gives code run by `-e` no baseline code, asked for or not.
  const tiers = (compiler: "--maglev" | "--sparkplug", calls: number, imports: string[]) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-tiers-"));
    const probe = path.join(dir, "probe.js");
    fs.writeFileSync(
      probe,
      `function add(a, b) { return a + b; }
      let sum = 0;
      for (let i = 0; i < ${calls}; i++) sum += add(i, 1);
      const status = %GetOptimizationStatus(add);
      process.stdout.write(JSON.stringify({ maglev: (status & ${MAGLEV_COMPILED}) !== 0, baseline: (status & ${BASELINE_CODE}) !== 0, sum }));`,
    );
    const run = spawnSync(
      process.execPath,
      [
        compiler,
        // Baseline code is compiled a batch at a time, once enough waits: when depends on what else ran.
        "--no-baseline-batch-compilation",
        "--no-concurrent-recompilation",
        "--allow-natives-syntax",
        ...imports.flatMap((module) => ["--import", module]),
        probe,
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    fs.rmSync(dir, { recursive: true });
    expect(run.stdout, run.stderr).not.toBe("");
    return JSON.parse(run.stdout) as { maglev: boolean; baseline: boolean };
  };

  const nodeMajor = Number(process.versions.node.split(".")[0]);
  const serverFlags = [path.resolve("heap-flags.mjs")];

  it.skipIf(nodeMajor < 24)(
    "leave Maglev off: a hot function is not compiled by it",
    () => {
      expect(tiers("--maglev", 5000, []).maglev).toBe(true);
      expect(tiers("--maglev", 5000, serverFlags).maglev).toBe(false);
    },
    30_000,
  );

  it.skipIf(nodeMajor < 24)(
    "leave Sparkplug off: a warm function keeps to the interpreter",
    () => {
      expect(tiers("--sparkplug", 300, []).baseline).toBe(true);
      expect(tiers("--sparkplug", 300, serverFlags).baseline).toBe(false);
    },
    30_000,
  );
});
