import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// .dependency-cruiser.cjs run, as `npm run lint:deps` runs it, on scripts/depcruise-fixtures: a tiny
// tree shaped like the repository in which each breaking import must be named by its rule.
const root = path.resolve(".");
const fixture = path.join(root, "scripts/depcruise-fixtures");
const lintDeps: string = JSON.parse(fs.readFileSync("package.json", "utf8")).scripts["lint:deps"];
const checkedPaths = lintDeps
  .replace(/^depcruise /, "")
  .replace(/ --config .*$/, "")
  .split(" ");

describe("the dependency rules", () => {
  it("name every breaking import of the fixture, and only those", { timeout: 180_000 }, () => {
    const run = spawnSync(
      path.join(root, "node_modules/.bin/depcruise"),
      [
        ...checkedPaths.filter((entry) => fs.existsSync(path.join(fixture, entry))),
        "--config",
        path.join(root, ".dependency-cruiser.cjs"),
        "--output-type",
        "json",
      ],
      { cwd: fixture, encoding: "utf8" },
    );
    const violations = (
      JSON.parse(run.stdout).summary.violations as Array<{ rule: { name: string }; from: string; to: string }>
    )
      .map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`)
      .sort();
    expect(violations).toEqual([
      // The SDK and CLI are their own package: what they import is in client/package.json.
      "client-package-dependencies: client/breaks-package.ts -> ../../node_modules/picomatch/index.js",
      // The SDK and CLI speak HTTP; they import nothing of the server.
      "client-stands-alone: client/index.ts -> server/errors.ts",
      // Routers whatever their name, and modules that answer HTTP themselves, hold no storage.
      "edges-hold-no-storage: server/auth/dev-login-endpoint.ts -> server/db/index.ts",
      "edges-hold-no-storage: server/imports/provider-webhook-endpoint.ts -> server/db/index.ts",
      "edges-hold-no-storage: server/projects/access-router.ts -> server/db/index.ts",
      // A single-file area (trpc.ts) enters a folder area through its index.ts.
      "front-door-from-a-single-file-area: server/trpc.ts -> server/auth/session.ts",
      // Root files Next loads are checked like app/.
      "front-door-from-outside: instrumentation.ts -> server/runtime/start.ts",
      // tests/ is checked too.
      "no-circular: tests/support/helper.ts -> tests/support/other.ts",
      // Production code never imports test code: bench/, tests/, or another area's test-fixtures.ts.
      "production-imports-no-test-code: scripts/breaks-bench.ts -> bench/run.ts",
      "production-imports-no-test-code: server/projects/breaks-fixture.ts -> server/issues/test-fixtures.ts",
      "production-imports-no-test-code: server/projects/breaks-tests.ts -> tests/support/helper.ts",
      // server/ is imported by the top, never the other way round.
      "server-below-the-top: server/projects/breaks-app.ts -> app/page.tsx",
      "server-below-the-top: server/projects/breaks-inngest.ts -> inngest/job.ts",
    ]);
  });

  it("are run on every top-level folder and file of code in the repository", () => {
    const tracked = execFileSync("git", ["ls-files", "*.ts", "*.tsx", "*.mjs", "*.js"], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    const topLevel = [...new Set(tracked.map((file) => file.split("/")[0]))].sort();
    expect(topLevel.filter((entry) => !checkedPaths.includes(entry))).toEqual([]);
  });
});
