// Runs every benchmark once with a tiny budget so a broken one fails CI; the numbers are not kept,
// so two run at a time (each spends most of its time starting up, on one core). The `next start`
// benchmarks git-clone, pages, fleet, idle, routes-heap, soak and users-me use the build SVC_E2E_APP
// names (.ci/run makes it; users-me then runs without its bare baseline route); without one, users-me
// builds its own copy (with the bare route) and the others wait for it and use it.
import { spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const tsx = ["npx", "tsx"];
const sharedBuild = process.env.SVC_E2E_APP;
const app = sharedBuild ?? "bench/.work/users-me/app";
const usersMe = [
  ...["node", "bench/users-me/run.mjs", "--requests", "200", "--concurrency", "4", "--warmup", "20"],
  ...(sharedBuild ? ["--app", sharedBuild] : []),
];
const onBuild = [
  ["node", "bench/git-clone/run.mjs", "--files", "50", "--commits", "5", "--runs", "1", "--app", app],
  // Its set-up's 100 issues and 100-module review by default took 60-75 s of the smoke run in CI.
  [
    "node",
    "bench/pages/run.mjs",
    "--files",
    "200",
    "--diff",
    "20",
    "--review",
    "5",
    "--issues",
    "5",
    "--requests",
    "3",
    "--app",
    app,
  ],
  ["node", "bench/fleet/run.mjs", "--agents", "2", "--seconds", "3", "--plumbing-cycles", "2", "--app", app],
  ["node", "bench/idle/run.mjs", "--seconds", "2", "--settle", "0", "--app", app],
  ["node", "bench/routes-heap/run.mjs", "--app", app],
  ["node", "bench/soak/run.mjs", "--agents", "2", "--minutes", "0.1", "--interval", "2", "--app", app],
];
const runs = [
  usersMe,
  ...(sharedBuild ? onBuild : []),
  [
    ...tsx,
    "bench/changes/run.ts",
    "--files",
    "60",
    "--batch",
    "3",
    "--singles",
    "2",
    "--diff",
    "10",
    "--scan-files",
    "50",
  ],
  [...tsx, "bench/git-workspace/run.ts", "--commits", "5", "--concurrency", "2"],
  [...tsx, "bench/git-spawn/run.ts", "--calls", "10", "--rounds", "1", "--ballast-mb", "10"],
  [...tsx, "bench/core-loop/run.ts", "--cycles", "2", "--warmup", "1"],
  [...tsx, "bench/webhooks/run.ts", "--events", "3", "--gap", "0", "--hooks", "2", "--burst", "2"],
  [...tsx, "bench/jobs/run.ts", "--latency", "5", "--burst", "20", "--concurrency", "2"],
  [...tsx, "bench/access/run.ts", "--requests", "20", "--rounds", "1"],
  [...tsx, "bench/deployments/run.ts", "--merges", "2", "--gap", "0"],
  [...tsx, "bench/mcp/run.ts", "--requests", "20", "--rounds", "1"],
  [
    ...tsx,
    "bench/agents/run.ts",
    "--comments",
    "3",
    "--merges",
    "2",
    "--streams",
    "20",
    "--changes",
    "2",
    "--idle-seconds",
    "1",
    "--requests",
    "20",
    "--rounds",
    "1",
  ],
  [...tsx, "bench/etag/run.ts", "--files", "50", "--requests", "10", "--rounds", "1"],
  [
    ...tsx,
    "bench/backup/run.ts",
    "--projects",
    "2",
    "--files",
    "20",
    "--commits",
    "3",
    "--changes",
    "50",
    "--scrapes",
    "3",
  ],
  [
    ...tsx,
    "bench/read/run.ts",
    "--files",
    "50",
    "--diff",
    "5",
    "--lines",
    "50",
    "--history",
    "3",
    "--runs",
    "1",
    "--big-mb",
    "1",
  ],
  [...tsx, "bench/ci/run.ts", "--rounds", "1", "--files", "50", "--only", "overhead"],
  [...tsx, "bench/transaction-hold/run.ts", "--movers", "3", "--rounds", "2"],
  [
    ...tsx,
    "bench/imports/run.ts",
    "--files",
    "50",
    "--commits",
    "5",
    "--runs",
    "1",
    "--big-mb",
    "2",
    "--sync-commits",
    "2",
  ],
];
const CONCURRENCY = 2;

const failed = [];
function run([command, ...args]) {
  const label = args.find((arg) => arg.startsWith("bench/"));
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
    child.on("close", (status) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${status === 0 ? "ok  " : "FAIL"} ${label} (${seconds} s)`);
      if (status !== 0) failed.push(label);
      resolve(label);
    });
  });
}

const queue = [...runs];
const after = new Map([[usersMe, sharedBuild ? [] : onBuild]]);
async function worker() {
  for (let next = queue.shift(); next; next = queue.shift()) {
    await run(next);
    queue.unshift(...(after.get(next) ?? []));
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
if (failed.length) {
  console.error(`bench:smoke: ${failed.length} benchmark(s) failed: ${failed.join(", ")}`);
  process.exit(1);
}
