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
