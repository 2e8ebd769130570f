// The cost of the project page's "last commit per entry": the one `git log --name-only` walk of
// server/git/last-commits.ts (same arguments) over a history of COMMITS commits touching ENTRIES
// root entries (half files, half folders with a file each), each commit changing one or two entries.
// The walk runs once per (commit, directory) and is then kept, so this is the first view's cost.
// Usage: node bench/pages/last-commits.mjs [--commits 1000] [--entries 200] [--runs 20]
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    commits: { type: "string", default: "1000" },
    entries: { type: "string", default: "200" },
    runs: { type: "string", default: "20" },
  },
});
const COMMITS = Number(values.commits);
const ENTRIES = Number(values.entries);
const RUNS = Number(values.runs);

const gitdir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-last-commits-"));
const git = (args, input) => execFileSync("git", ["--git-dir", gitdir, ...args], { input, maxBuffer: 1 << 28 });
git(["init", "--bare", "-q"]);

const entryPath = (i) => (i % 2 === 0 ? `file${i}.txt` : `dir${i}/inner.txt`);
let stream = "";
for (let c = 0; c < COMMITS; c++) {
  const touched = c < ENTRIES ? [c] : [c % ENTRIES, (c * 7) % ENTRIES];
  const message = `commit ${c}`;
  stream += `commit refs/heads/main\ncommitter bench <bench@example.com> ${1_700_000_000 + c} +0000\n`;
  stream += `data ${Buffer.byteLength(message)}\n${message}\n`;
  for (const i of touched) {
    const content = `entry ${i} at commit ${c}\n`;
    stream += `M 100644 inline ${entryPath(i)}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  }
}
git(["fast-import", "--quiet"], stream);

const args = [
  "--literal-pathspecs",
  "log",
  "-z",
  "--format=%x01%H %ct %s",
  "--name-only",
  "--no-renames",
  "--max-count=5000",
  "main",
  "--",
];
const times = [];
for (let run = 0; run < RUNS; run++) {
  const start = process.hrtime.bigint();
  const out = git(args).toString("utf8");
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (run === 0) {
    const names = new Set(
      out
        .split("\0")
        .map((name) => name.replace(/^\n/, "").split("/")[0])
        .filter((name) => /^(file|dir)\d+/.test(name)),
    );
    if (names.size !== ENTRIES) throw new Error(`the walk found ${names.size} of ${ENTRIES} entries`);
  }
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
console.log(
  `last commit of ${ENTRIES} entries over ${COMMITS} commits: one walk p50 ${at(0.5)} ms, p90 ${at(0.9)} ms (${RUNS} runs; load ${os.loadavg()[0].toFixed(2)})`,
);
fs.rmSync(gitdir, { recursive: true, force: true });
