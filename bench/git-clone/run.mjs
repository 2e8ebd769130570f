// Clone of a generated repository (default 5,000 files, 500 commits) through our smart-HTTP
// endpoint under `next start`, against `git http-backend` serving the same bare repository
// directly (behind a minimal CGI adapter, cgi-backend.mjs). Reports the median wall time of
// `git clone --no-checkout` per side (protocol v2 and v0), server CPU per clone, and the ratio
// (target <= 1.2x). The app is a throwaway copy of HEAD built under bench/.work/.
// Usage: node bench/git-clone/run.mjs [--files 5000] [--commits 500] [--runs 7] [--skip-build]
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildAppCopy, request, root, startNext, stopProcess, usage, waitForServer } from "../support/next-app.mjs";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5000" },
    commits: { type: "string", default: "500" },
    runs: { type: "string", default: "7" },
    "skip-build": { type: "boolean", default: false },
    // An app another benchmark already built (bench:smoke shares one build).
    app: { type: "string" },
  },
});
const FILES = Number(values.files);
const COMMITS = Number(values.commits);
const RUNS = Number(values.runs);
const work = path.join(root, "bench/.work/git-clone");
const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-git-"));
const gitEnv = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };

/** A deterministic repository: FILES files in 100 directories, then COMMITS-1 commits of 10 edits each. */
function generateRepository(gitdir) {
  fs.rmSync(gitdir, { recursive: true, force: true });
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", gitdir], { env: gitEnv });
  let seed = 42;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const words = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "const",
    "return",
    "value",
    "index",
    "for",
    "if",
    "let",
    "async",
    "await",
    "map",
  ];
  const content = (n) =>
    Array.from(
      { length: 20 + Math.floor(random() * 40) },
      (_, line) =>
        `${line} ${n} ${Array.from({ length: 8 }, () => words[Math.floor(random() * words.length)]).join(" ")}`,
    ).join("\n") + "\n";
  const file = (i) => `dir${String(i % 100).padStart(2, "0")}/file${i}.txt`;
  const chunks = [];
  const blob = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let time = 1_700_000_000;
  for (let c = 0; c < COMMITS; c++) {
    const message = `commit ${c}`;
    chunks.push(`commit refs/heads/main\ncommitter Bench <bench@example.test> ${time++} +0000\n${blob(message)}`);
    const paths =
      c === 0
        ? Array.from({ length: FILES }, (_, i) => i)
        : Array.from({ length: 10 }, () => Math.floor(random() * FILES));
    for (const i of paths) chunks.push(`M 100644 inline ${file(i)}\n${blob(content(`${c}-${i}`))}`);
    chunks.push("\n");
  }
  execFileSync("git", ["--git-dir", gitdir, "fast-import", "--quiet"], {
    input: chunks.join(""),
    env: gitEnv,
    maxBuffer: 1 << 30,
  });
  execFileSync("git", ["--git-dir", gitdir, "repack", "-a", "-d", "-q"], { env: gitEnv });
}

function timedGit(args) {
  const started = performance.now();
  execFileSync("git", args, { env: gitEnv, stdio: ["ignore", "ignore", "inherit"] });
  return (performance.now() - started) / 1000;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const PORT = 3911;
const BACKEND_PORT = 3912;
const app = values.app ? path.resolve(values.app) : values["skip-build"] ? path.join(work, "app") : buildAppCopy(work);
const dataDir = path.join(work, "data");
fs.rmSync(dataDir, { recursive: true, force: true });
const server = startNext(app, PORT, {
  DATA_DIR: dataDir,
  BASE_URL: `http://127.0.0.1:${PORT}`,
  ADMIN_API_KEY: "bench-key",
  RATE_LIMIT_PER_MINUTE: "100000000",
});
const cpuOf = (pid) => usage(pid, { reaped: true }).cpu;
let backend;
const rows = [];
try {
  await waitForServer(PORT, server);
  const json = { "content-type": "application/json" };
  const user = await request(PORT, "/api/admin/users", {
    method: "POST",
    headers: { ...json, "x-admin-api-key": "bench-key" },
    body: JSON.stringify({ username: `bench${Date.now()}` }),
  });
  if (user.status !== 201) throw new Error(`creating the bench user failed: ${user.status} ${user.body}`);
  const token = JSON.parse(user.body).token;
  const project = await request(PORT, "/api/projects", {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: "clonebench" }),
  });
  if (project.status !== 201) throw new Error(`creating the project failed: ${project.status} ${project.body}`);
  const { id, remote } = JSON.parse(project.body);
  const authed = remote.replace("http://", `http://git:${token}@`);

  const started = Date.now();
  const generated = path.join(work, "generated.git");
  generateRepository(generated);
  console.log(`generated ${FILES} files, ${COMMITS} commits in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const pushSeconds = timedGit(["--git-dir", generated, "push", "-q", "--force", authed, "main"]);
  const repoPath = path.join(dataDir, "repos", id, "project.git");
  const packBytes = fs
    .readdirSync(path.join(repoPath, "objects/pack"))
    .filter((f) => f.endsWith(".pack"))
    .reduce((n, f) => n + fs.statSync(path.join(repoPath, "objects/pack", f)).size, 0);
  console.log(
    `pushed through smart HTTP in ${pushSeconds.toFixed(2)} s (pack ${(packBytes / 2 ** 20).toFixed(1)} MiB)`,
  );

  backend = spawn(
    process.execPath,
    [path.join(import.meta.dirname, "cgi-backend.mjs"), String(BACKEND_PORT), path.dirname(repoPath)],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  await waitForServer(BACKEND_PORT, backend, "/");
  const sides = [
    { name: "svc smart HTTP (next start)", url: authed, pid: server.pid },
    { name: "git http-backend (CGI)", url: `http://127.0.0.1:${BACKEND_PORT}/project.git`, pid: backend.pid },
  ];
  for (const protocol of ["2", "0"]) {
    const times = sides.map(() => []);
    const cpu = sides.map(() => []);
    for (let run = -1; run < RUNS; run++) {
      for (const [index, side] of sides.entries()) {
        const target = path.join(home, `clone-${protocol}-${index}-${run}`);
        const before = cpuOf(side.pid);
        const seconds = timedGit([
          "-c",
          `protocol.version=${protocol}`,
          "clone",
          "-q",
          "--no-checkout",
          side.url,
          target,
        ]);
        const spent = cpuOf(side.pid) - before;
        fs.rmSync(target, { recursive: true, force: true });
        if (run < 0) continue; // warm-up
        times[index].push(seconds);
        cpu[index].push(spent);
      }
    }
    for (const [index, side] of sides.entries())
      rows.push({
        protocol,
        name: side.name,
        median: median(times[index]),
        min: Math.min(...times[index]),
        cpu: median(cpu[index]),
      });
  }
} finally {
  if (backend) await stopProcess(backend);
  await stopProcess(server);
  fs.rmSync(home, { recursive: true, force: true });
}

console.log(
  `\ngit clone --no-checkout of ${FILES} files / ${COMMITS} commits, ${RUNS} runs per side after a warm-up, alternating, loopback\n`,
);
console.log("| protocol | server | median s | min s | server CPU s/clone |");
console.log("|---|---|---|---|---|");
for (const r of rows)
  console.log(`| v${r.protocol} | ${r.name} | ${r.median.toFixed(2)} | ${r.min.toFixed(2)} | ${r.cpu.toFixed(2)} |`);
for (const protocol of ["2", "0"]) {
  const [ours, reference] = rows.filter((r) => r.protocol === protocol);
  console.log(
    `protocol v${protocol}: svc / http-backend = ${(ours.median / reference.median).toFixed(2)}x wall (target <= 1.2x), ${(ours.cpu / reference.cpu).toFixed(2)}x server CPU`,
  );
}
