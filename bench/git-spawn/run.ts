// What running git costs the server's thread: --calls `git rev-parse HEAD` (--concurrency at a time),
// forked by this process itself with child_process.spawn (what spawnGit and streamGit did before),
// against through the git launcher (server/processes): collected whole (spawnGit) and streamed
// (streamGit: stdout on a socket to this process), with this process as large as a fleet's server
// (--ballast-mb touched). Per call: this process's CPU (its thread pool's included), the launcher's
// CPU (from /proc), and the wall time of the whole batch; rounds alternate.
// Usage: npx tsx bench/git-spawn/run.ts [--calls 200] [--concurrency 8] [--rounds 3] [--ballast-mb 300]
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { spawnGit, streamGit } from "@/server/git";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "200" },
    concurrency: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    "ballast-mb": { type: "string", default: "300" },
  },
});
const CALLS = Number(values.calls);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);

const ballast = Array.from({ length: Number(values["ballast-mb"]) }, () => Buffer.alloc(1 << 20, 1));
const gitdir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-git-spawn-")), "repo.git");
execFileSync("git", ["init", "-q", "--bare", gitdir]);
const tree = execFileSync("git", ["--git-dir", gitdir, "mktree"], { input: "" }).toString().trim();
const commit = execFileSync("git", [
  ...["--git-dir", gitdir, "-c", "user.name=b", "-c", "user.email=b@x"],
  ...["commit-tree", tree, "-m", "one"],
])
  .toString()
  .trim();
execFileSync("git", ["--git-dir", gitdir, "update-ref", "refs/heads/main", commit]);
execFileSync("git", ["--git-dir", gitdir, "symbolic-ref", "HEAD", "refs/heads/main"]);
const ARGS = ["--git-dir", gitdir, "rev-parse", "HEAD"];

function forkedHere(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ARGS, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("error", reject);
    child.on("close", () => resolve(out.trim()));
  });
}

const throughLauncher = async () => (await spawnGit(ARGS)).stdout.toString().trim();

async function streamedThroughLauncher(): Promise<string> {
  const git = await streamGit(ARGS);
  let out = "";
  for await (const chunk of git.stdout) out += chunk.toString();
  await git.exit;
  return out.trim();
}

/** The CPU ms so far of this process's git launcher (0 before it started). */
function launcherCpuMs(): number {
  for (const entry of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== process.pid) continue;
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("launcher-process.mjs\0git")) continue;
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, at 100 ticks a second
    } catch {
      // ended while read
    }
  }
  return 0;
}

async function batch(call: () => Promise<string>) {
  const cpu0 = process.cpuUsage();
  const launcher0 = launcherCpuMs();
  const wall0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < CALLS) if ((await call()) !== commit) throw new Error("git answered another commit");
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return {
    serverCpuMsPerCall: +((cpu.user + cpu.system) / 1000 / CALLS).toFixed(2),
    launcherCpuMsPerCall: +((launcherCpuMs() - launcher0) / CALLS).toFixed(2),
    wallMs: Math.round(performance.now() - wall0),
  };
}

await throughLauncher(); // the launcher started before the first round
type Batch = Awaited<ReturnType<typeof batch>>;
const rounds: Array<{ forkedHere: Batch; throughLauncher: Batch; streamedThroughLauncher: Batch }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const here = await batch(forkedHere);
  const launched = await batch(throughLauncher);
  const streamed = await batch(streamedThroughLauncher);
  rounds.push({ forkedHere: here, throughLauncher: launched, streamedThroughLauncher: streamed });
}
const median = (pick: (r: (typeof rounds)[number]) => number) =>
  [...rounds.map(pick)].sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
const summary = {
  calls: CALLS,
  concurrency: CONCURRENCY,
  residentMb: Math.round(process.memoryUsage().rss / 2 ** 20),
  ballastMb: ballast.length,
  load: os.loadavg().map((l) => +l.toFixed(2)),
  rounds,
  median: {
    forkedHere: {
      serverCpuMsPerCall: median((r) => r.forkedHere.serverCpuMsPerCall),
      wallMs: median((r) => r.forkedHere.wallMs),
    },
    throughLauncher: {
      serverCpuMsPerCall: median((r) => r.throughLauncher.serverCpuMsPerCall),
      launcherCpuMsPerCall: median((r) => r.throughLauncher.launcherCpuMsPerCall),
      wallMs: median((r) => r.throughLauncher.wallMs),
    },
    streamedThroughLauncher: {
      serverCpuMsPerCall: median((r) => r.streamedThroughLauncher.serverCpuMsPerCall),
      launcherCpuMsPerCall: median((r) => r.streamedThroughLauncher.launcherCpuMsPerCall),
      wallMs: median((r) => r.streamedThroughLauncher.wallMs),
    },
  },
};
console.log(JSON.stringify(summary, null, 2));
fs.rmSync(path.dirname(gitdir), { recursive: true, force: true });
