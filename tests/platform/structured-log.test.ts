import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("the structured log", () => {
  it("is the only way the service writes a line: no console.* in server/, app/, inngest/ or the front", () => {
    // scripts/, the CLI and the benchmarks print for their users; tests may print anything.
    const paths = [
      "server",
      "app",
      "inngest",
      "server.mjs",
      "front.mjs",
      "chunk-release.mjs",
      "page-log.mjs",
      "error-shell.mjs",
      "heap-flags.mjs",
      "keep-alive.mjs",
      "acceptors.mjs",
      ":!*.test.ts",
      ":!**/test-*.ts",
    ];
    const found = spawnSync("git", ["grep", "-n", "-E", "console\\.(log|info|warn|error|debug)\\(", "--", ...paths], {
      encoding: "utf8",
    });
    expect(found.status, found.stderr).toBe(1); // git grep: 1 = no match
    expect(found.stdout).toBe("");
  });
});
