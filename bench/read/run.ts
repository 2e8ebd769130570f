// Reading code (docs/contracts.md#reading-code) through the route handlers in-process, each against the git
// command it wraps, on the same bare repository, in one run:
//   search (fixed string, regex) over a --files repository   vs git grep
//   a change diff of --diff files                            vs git diff -M base...tip
//   an archive of that repository                            vs git archive
//   blame of a --lines file with --history commits           vs git blame --porcelain
// p50 wall time per call over --runs calls, and CPU per call (this process and the git it waited
// for: steadier than wall time on a loaded machine); then the process's peak RSS while a --big-mb
// archive streams through the handler (read and dropped chunk by chunk).
// Usage: npx tsx bench/read/run.ts [--files 5000] [--diff 500] [--lines 2000] [--history 200] [--runs 15] [--big-mb 100]
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { api, benchEnvironment, BENCH_ORIGIN } from "../support/in-process";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5000" },
    diff: { type: "string", default: "500" },
    lines: { type: "string", default: "2000" },
    history: { type: "string", default: "200" },
    runs: { type: "string", default: "15" },
    "big-mb": { type: "string", default: "100" },
  },
});
const FILES = Number(values.files);
const DIFF = Number(values.diff);
const LINES = Number(values.lines);
const HISTORY = Number(values.history);
const RUNS = Number(values.runs);
const BIG_MB = Number(values["big-mb"]);

const dataDir = benchEnvironment("read");
const { closeDatabase } = await import("@/server/db/client");
const { openProjectRepo } = await import("@/server/git");
const { routeModuleFor } = await import("@/tests/support/http");

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "B",
  GIT_AUTHOR_EMAIL: "b@bench.test",
  GIT_COMMITTER_NAME: "B",
  GIT_COMMITTER_EMAIL: "b@bench.test",
  GIT_CONFIG_NOSYSTEM: "1",
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, env: gitEnv, maxBuffer: 1 << 30 })
    .toString()
    .trim();

/** One GET through the app's route module for the path (REST catch-all or a plain route), body drained. */
async function get(token: string, url: string, headers: Record<string, string> = {}): Promise<number> {
  const full = new URL(`/api${url}`, BENCH_ORIGIN);
  const handler = routeModuleFor(full.pathname).GET as (req: Request) => Promise<Response>;
  const res = await handler(
    new Request(full, { headers: { authorization: `Bearer ${token}`, host: full.host, ...headers } }),
  );
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return bytes;
}

/** The same work done by git itself, from this process (one spawn, output drained). */
function gitRun(gitdir: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["--git-dir", gitdir, ...args], { env: gitEnv, stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (chunk: Buffer) => (bytes += chunk.length));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 || code === 1 ? resolve(bytes) : reject(new Error(`git ${args[0]}: ${code}`)),
    );
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString());
/** CPU ms used so far by this process and by the children it has waited for (git), from /proc/self/stat. */
function cpuMs(): number {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000 + (Number(fields[13]) + Number(fields[14])) * TICK_MS; // cutime, cstime
}

/** p50 wall ms and mean CPU ms of ours and of git's, alternating call by call so drift hits both alike. */
async function pair(ours: () => Promise<number>, theirs: () => Promise<number>) {
  await ours();
  await theirs();
  const wall = { ours: [] as number[], git: [] as number[] };
  const cpu = { ours: 0, git: 0 };
  const time = async (side: "ours" | "git", run: () => Promise<number>) => {
    const [started, used] = [performance.now(), cpuMs()];
    await run();
    wall[side].push(performance.now() - started);
    cpu[side] += (cpuMs() - used) / RUNS;
  };
  for (let i = 0; i < RUNS; i++) {
    await time("ours", ours);
    await time("git", theirs);
  }
  return { ours: median(wall.ours), git: median(wall.git), cpu };
}

function report(name: string, target: number, result: Awaited<ReturnType<typeof pair>>) {
  const wall = `${result.ours.toFixed(1).padStart(9)} ms${result.git.toFixed(1).padStart(10)} ms${(result.ours / result.git).toFixed(2).padStart(8)}x`;
  const cpu = `${result.cpu.ours.toFixed(0).padStart(7)} ms${result.cpu.git.toFixed(0).padStart(7)} ms${(result.cpu.ours / result.cpu.git).toFixed(2).padStart(7)}x`;
  console.log(`${name.padEnd(34)}${wall}   (target <= ${target}x)${cpu}`);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "bench-read-wt-"));
try {
  const owner = await api("POST", "/admin/users", null, { username: "owner" });
  const project = await api("POST", "/projects", owner.token, { name: "big", files: { "README.md": "bench\n" } });
  const gitdir = openProjectRepo(project.id).gitdir;
  const clone = path.join(work, "clone");
  git(work, "clone", "-q", gitdir, clone);
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(clone, `src/d${i % 50}`);
    fs.mkdirSync(dir, { recursive: true });
    const body = Array.from(
      { length: 40 },
      (_, line) => `export const v${i}_${line} = "${line === 17 && i % 97 === 0 ? "needle" : "hay"}${i}";`,
    ).join("\n");
    fs.writeFileSync(path.join(dir, `f${i}.ts`), `${body}\n`);
  }
  const blamed = path.join(clone, "blame.txt");
  fs.writeFileSync(blamed, Array.from({ length: LINES }, (_, i) => `line ${i}`).join("\n") + "\n");
  git(clone, "add", "-A");
  git(clone, "commit", "-q", "-m", "tree");
  for (let c = 0; c < HISTORY; c++) {
    const lines = fs.readFileSync(blamed, "utf8").split("\n");
    for (let k = 0; k < 10; k++)
      lines[(c * 37 + k * 191) % LINES] = `line ${(c * 37 + k * 191) % LINES} edited in ${c}`;
    fs.writeFileSync(blamed, lines.join("\n"));
    git(clone, "commit", "-q", "-am", `blame history ${c}`);
  }
  git(clone, "push", "-q", gitdir, "main");
  const main = git(clone, "rev-parse", "HEAD");

  // The change: DIFF files edited in a workspace, proposed against main.
  await api("POST", `/workspaces/${project.path}/workspaces`, owner.token, { name: "wide" });
  const edits = Object.fromEntries(
    Array.from({ length: DIFF }, (_, i) => [`src/d${i % 50}/f${i}.ts`, `export const changed${i} = ${i};\n`.repeat(5)]),
  );
  await api("POST", `/workspaces/wide/commit`, owner.token, {
    projectId: project.id,
    message: "wide edit",
    files: edits,
  });
  const { change } = await api("POST", `/projects/${project.path}/changes`, owner.token, { workspace: "wide" });

  const P = `/projects/${project.path}`;
  console.log(
    `${FILES} files, a ${DIFF}-file change, blame of ${LINES} lines over ${HISTORY} commits; p50 of ${RUNS} calls; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `${"".padEnd(34)}${"ours".padStart(12)}${"git".padStart(13)}${"ratio".padStart(9)}${"".padEnd(21)}${"CPU ours".padStart(10)}${"git".padStart(10)}${"ratio".padStart(8)}`,
  );
  report(
    "search, fixed string",
    1.2,
    await pair(
      () => get(owner.token, `${P}/search?q=needle&limit=1000`),
      () => gitRun(gitdir, ["grep", "--null", "-n", "-I", "-F", "-i", "-e", "needle", main, "--"]),
    ),
  );
  report(
    "search, regex",
    1.2,
    await pair(
      () => get(owner.token, `${P}/search?q=${encodeURIComponent("need(le|ed)[0-9]+")}&regex=true&limit=1000`),
      () => gitRun(gitdir, ["grep", "--null", "-n", "-I", "-E", "-i", "-e", "need(le|ed)[0-9]+", main, "--"]),
    ),
  );
  report(
    `change diff, ${DIFF} files (limit 300)`,
    1.2,
    await pair(
      () => get(owner.token, `/changes/${change.id}/diff?limit=300`),
      () => gitRun(gitdir, ["diff", "-M", `${change.baseSha}...${change.tipSha}`]),
    ),
  );
  report(
    "change diff, text/x-diff",
    1.2,
    await pair(
      () => get(owner.token, `/changes/${change.id}/diff?format=patch`),
      () => gitRun(gitdir, ["diff", "-M", "--binary", "--full-index", `${change.baseSha}...${change.tipSha}`]),
    ),
  );
  const stem = `big-${main.slice(0, 12)}`;
  report(
    "archive, tar.gz",
    1.1,
    await pair(
      () => get(owner.token, `${P}/archive`),
      () => gitRun(gitdir, ["archive", "--format=tar.gz", `--prefix=${stem}/`, main]),
    ),
  );
  report(
    `blame, ${LINES} lines / ${HISTORY} commits`,
    1.2,
    await pair(
      () => get(owner.token, `${P}/blame?path=blame.txt`),
      () => gitRun(gitdir, ["blame", "--porcelain", main, "--", "blame.txt"]),
    ),
  );

  // Memory while a BIG_MB archive of incompressible files streams through the handler.
  const bigProject = await api("POST", "/projects", owner.token, { name: "huge", files: { "README.md": "big\n" } });
  const bigGitdir = openProjectRepo(bigProject.id).gitdir;
  const bigClone = path.join(work, "huge");
  git(work, "clone", "-q", bigGitdir, bigClone);
  for (let i = 0; i < BIG_MB; i++)
    fs.writeFileSync(path.join(bigClone, `blob${i}.bin`), crypto.randomBytes(1024 * 1024));
  git(bigClone, "add", "-A");
  git(bigClone, "commit", "-q", "-m", "big");
  git(bigClone, "push", "-q", bigGitdir, "main");
  fs.rmSync(bigClone, { recursive: true, force: true });
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  const bytes = await get(owner.token, `/projects/${bigProject.path}/archive`);
  clearInterval(sampler);
  console.log(
    `archive of ${(bytes / 2 ** 20).toFixed(0)} MiB streamed in ${((performance.now() - started) / 1000).toFixed(1)} s: RSS ${(before / 2 ** 20).toFixed(0)} MiB before, peak ${(peak / 2 ** 20).toFixed(0)} MiB (+${((peak - before) / 2 ** 20).toFixed(1)} MiB)`,
  );
} finally {
  await closeDatabase();
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}
