// Runs every benchmark once with a tiny budget so a broken one fails CI; the numbers are not kept.
// The `next start` benchmarks share one build (users-me makes it, git-clone and pages reuse it).
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const tsx = ["npx", "tsx"];
const runs = [
  [...tsx, "bench/git-workspace/run.ts", "--commits", "5", "--concurrency", "2"],
  [...tsx, "bench/changes/run.ts", "--files", "60", "--batch", "3", "--singles", "2", "--diff", "10"],
  [...tsx, "bench/webhooks/run.ts", "--events", "3", "--gap", "0", "--hooks", "2", "--burst", "2"],
  [...tsx, "bench/jobs/run.ts", "--latency", "5", "--burst", "20", "--concurrency", "2"],
  [...tsx, "bench/access/run.ts", "--requests", "20", "--rounds", "1"],
  [...tsx, "bench/deployments/run.ts", "--merges", "2", "--gap", "0"],
  [...tsx, "bench/mcp/run.ts", "--requests", "20", "--rounds", "1"],
  [...tsx, "bench/etag/run.ts", "--files", "50", "--requests", "10", "--rounds", "1"],
  [...tsx, "bench/backup/run.ts", "--projects", "2", "--files", "20", "--commits", "3", "--changes", "50", "--scrapes", "3"],
  [...tsx, "bench/imports/run.ts", "--files", "50", "--commits", "5", "--runs", "1", "--big-mb", "2", "--sync-commits", "2"],
  ["node", "bench/users-me/run.mjs", "--requests", "200", "--concurrency", "4", "--warmup", "20"],
  ["node", "bench/git-clone/run.mjs", "--files", "50", "--commits", "5", "--runs", "1", "--app", "bench/.work/users-me/app"],
  ["node", "bench/pages/run.mjs", "--files", "200", "--diff", "20", "--requests", "3", "--app", "bench/.work/users-me/app"],
];

const failed = [];
for (const [command, ...args] of runs) {
  const label = args.find((arg) => arg.startsWith("bench/"));
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${result.status === 0 ? "ok  " : "FAIL"} ${label} (${seconds} s)`);
  if (result.status !== 0) failed.push(label);
}
if (failed.length) {
  console.error(`bench:smoke: ${failed.length} benchmark(s) failed: ${failed.join(", ")}`);
  process.exit(1);
}
