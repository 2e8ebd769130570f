// The sandbox runner (server/runners) against what it replaces and against itself:
// 1. overhead: a run of `true` on a 3,000-file checkout (checkout from the object store, bubblewrap,
//    cgroups, log, clean-up) against `git archive | tar -x` plus the same command and the removal
//    of the directory, in one shell (median of --rounds, alternating);
// 2. cache: a project with 50 npm dependencies (a lockfile resolved from the registry when the
//    benchmark starts), setup `npm ci` from the registry (cold: the cache empty) against a run whose
//    cache holds what setup produced (hit: restored by hard links, setup skipped); whole runs.
// 3. phases (--only phases): where a run of `true` spends its time, each step of executeRun timed
//    alone (median of --rounds): layout, checkout, the isolated command (limits, bwrap, setpriv),
//    the log, the removal (off the verdict's path since it runs after the result).
// 4. starts (--only starts): what --starts runs starting together cost the server's thread, with the
//    process as large as a fleet's server (--ballast-mb): the process's CPU time (its thread pool's
//    included), its event loop's busy time and longest stall, against forking the same processes per run (git archive | tar -x, then the command)
//    from the thread itself, as the runner did before its launcher.
// Usage: npx tsx bench/ci/run.ts [--rounds 15] [--files 3000] [--cache-rounds 3] [--only overhead|cache|phases|starts]
//                                [--starts 50] [--ballast-mb 300]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { setTimeout } from "node:timers/promises";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "15" },
    files: { type: "string", default: "3000" },
    "cache-rounds": { type: "string", default: "3" },
    only: { type: "string" },
    starts: { type: "string", default: "50" },
    "ballast-mb": { type: "string", default: "300" },
  },
});
const ROUNDS = Number(values.rounds);
const FILES = Number(values.files);
const CACHE_ROUNDS = Number(values["cache-rounds"]);

const root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-ci-"));
// The runs' own uids must reach DATA_DIR/runner (see README, SANDBOX_ENABLED).
fs.chmodSync(root, 0o711);
process.env.DATA_DIR = path.join(root, "data");
fs.mkdirSync(process.env.DATA_DIR);

const { openRepo } = await import("@/server/git");
const { executeRun, sandboxAvailable } = await import("@/server/runners");
const { parsePolicy } = await import("@/server/policy/parse");

const available = sandboxAvailable();
if (!available.ok) throw new Error(available.reason);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sandbox = (yaml: string) => {
  const parsed = parsePolicy(`evaluators:\n  sandbox: ${yaml}\n`);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.policy.evaluators.sandbox!;
};

/** A bare repository whose one commit holds `files`; returns it and the commit. */
function repository(name: string, files: Record<string, string>) {
  const work = path.join(root, `${name}-work`);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), text);
  }
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: work,
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "b",
        GIT_AUTHOR_EMAIL: "b@x",
        GIT_COMMITTER_NAME: "b",
        GIT_COMMITTER_EMAIL: "b@x",
      },
    }).trim();
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "tree");
  const gitdir = path.join(root, `${name}.git`);
  execFileSync("git", ["clone", "-q", "--bare", work, gitdir]);
  return { repo: openRepo(gitdir, name), commit: git("rev-parse", "HEAD") };
}

let logs = 0;
const run = (project: string, repo: ReturnType<typeof openRepo>, commit: string, policy: string) =>
  executeRun({
    projectId: project,
    repo,
    commit,
    sandbox: sandbox(policy),
    logPath: path.join(root, `run-${++logs}.log`),
  });

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
console.log(`node ${process.version}; ${os.cpus().length} CPUs; load average ${load()}`);

try {
  const overheadRepository = () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++) files[`src/d${i % 60}/f${i}.ts`] = `export const v${i} = ${i};\n`;
    return repository("overhead", files);
  };
  if (values.only === "phases") {
    const { createLayout, removeLayout } = await import("@/server/runners/layout");
    const { writeCheckout } = await import("@/server/runners/checkout");
    const { runIsolated } = await import("@/server/runners/isolate");
    const { RunLog } = await import("@/server/runners/log");
    const { repo, commit } = overheadRepository();
    const phases: Record<string, number[]> = { layout: [], checkout: [], command: [], log: [], removal: [] };
    for (let i = 0; i <= ROUNDS; i++) {
      const t = [performance.now()];
      const log = new RunLog(path.join(root, `phases-${i}.log`), 1 << 20);
      const layout = await createLayout();
      t.push(performance.now());
      await writeCheckout(repo, commit, layout);
      t.push(performance.now());
      const outcome = await runIsolated({
        layout,
        command: "true",
        network: false,
        memoryMb: 2048,
        timeoutMs: 60_000,
        onData: (chunk) => log.write(chunk),
      });
      if (outcome.code !== 0) throw new Error(`the command failed: ${JSON.stringify(outcome)}`);
      t.push(performance.now());
      log.close();
      t.push(performance.now());
      await removeLayout(layout);
      t.push(performance.now());
      // The first round warms the caches up and is not counted.
      if (i > 0) Object.values(phases).forEach((times, p) => times.push(t[p + 1] - t[p]));
    }
    console.log(
      `phases of a run of \`true\` (${FILES} files, median of ${ROUNDS}): ${Object.entries(phases)
        .map(([name, times]) => `${name} ${median(times).toFixed(1)} ms`)
        .join(", ")}; load ${load()}`,
    );
  }
  if (values.only === "starts") {
    const STARTS = Number(values.starts);
    const ballast = Array.from({ length: Number(values["ballast-mb"]) }, () => Buffer.alloc(1 << 20, 1));
    const { repo, commit } = overheadRepository();
    const exited = (child: ReturnType<typeof spawn>) =>
      new Promise<void>((resolve, reject) =>
        child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`exited ${code}`)))),
      );
    const forkedHere = async (i: number) => {
      const dir = path.join(root, `forked-${i}`);
      fs.mkdirSync(dir);
      const archive = spawn("git", ["--git-dir", repo.gitdir, "archive", "--format=tar", commit], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      const tar = spawn("tar", ["-x", "--no-same-owner", "-C", dir], { stdio: ["pipe", "ignore", "ignore"] });
      archive.stdout.pipe(tar.stdin);
      await Promise.all([exited(archive), exited(tar)]);
      await exited(spawn("sh", ["-c", "true"], { cwd: dir, stdio: "ignore" }));
      fs.rmSync(dir, { recursive: true, force: true });
    };
    const viaRunner = async () => {
      const result = await run("p-starts", repo, commit, "{ command: 'true' }");
      if (result.status !== "passed") throw new Error(`runner failed: ${JSON.stringify(result)}`);
    };
    const measure = async (start: (i: number) => Promise<void>) => {
      const stalls = monitorEventLoopDelay({ resolution: 1 });
      stalls.enable();
      const cpu = process.cpuUsage();
      const loop = performance.eventLoopUtilization();
      const started = performance.now();
      await Promise.all(Array.from({ length: STARTS }, (_, i) => start(i)));
      const wall = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const busy = performance.eventLoopUtilization(loop).active;
      stalls.disable();
      return { wall, cpu: (used.user + used.system) / 1000, busy, stall: stalls.max / 1e6 };
    };
    await viaRunner(); // the launcher started, caches warm
    await forkedHere(-1);
    const results: Record<string, Array<Awaited<ReturnType<typeof measure>>>> = { forked: [], runner: [] };
    for (let i = 0; i < ROUNDS; i++) {
      results.forked.push(await measure(forkedHere));
      results.runner.push(await measure(viaRunner));
    }
    const row = (name: string) =>
      `${name}: the process's CPU ${median(results[name].map((r) => r.cpu)).toFixed(0)} ms, its event loop busy ${median(results[name].map((r) => r.busy)).toFixed(0)} ms, longest stall ${median(results[name].map((r) => r.stall)).toFixed(1)} ms, all started and ended in ${median(results[name].map((r) => r.wall)).toFixed(0)} ms`;
    console.log(
      `${STARTS} runs of \`true\` starting together, ${FILES} files, the process at ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB resident (median of ${ROUNDS}): ${row("forked")}; ${row("runner")}; load ${load()}`,
    );
    ballast.length = 0;
  }
  if (!values.only || values.only === "overhead") {
    const { repo, commit } = overheadRepository();
    const baselineDir = path.join(root, "baseline");
    const baseline = () => {
      const started = performance.now();
      const result = spawnSync("sh", [
        "-c",
        'mkdir "$2" && git --git-dir "$1" archive --format=tar "$3" | tar -x --no-same-owner -C "$2" && (cd "$2" && true)',
        "sh",
        repo.gitdir,
        baselineDir,
        commit,
      ]);
      if (result.status !== 0) throw new Error(`baseline failed: ${result.stderr.toString()}`);
      const elapsed = performance.now() - started;
      // Removed outside the timing, as the runner removes a run's directory after its verdict.
      fs.rmSync(baselineDir, { recursive: true, force: true });
      return elapsed;
    };
    const workDir = path.join(process.env.DATA_DIR, "runner", "work");
    const runner = async () => {
      const started = performance.now();
      const result = await run("p-overhead", repo, commit, "{ command: 'true' }");
      if (result.status !== "passed") throw new Error(`runner failed: ${JSON.stringify(result)}`);
      const elapsed = performance.now() - started;
      // The run's directory goes after its verdict: let it go before the baseline's turn.
      while (fs.existsSync(workDir) && fs.readdirSync(workDir).length > 0) await setTimeout(20);
      return elapsed;
    };
    await runner();
    baseline();
    const base: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      base.push(baseline());
      ours.push(await runner());
    }
    const [b, o] = [median(base), median(ours)];
    console.log(
      `overhead (${FILES} files, \`true\`, median of ${ROUNDS}): git archive | tar -x + command ${b.toFixed(1)} ms; runner ${o.toFixed(1)} ms; ${(o / b).toFixed(2)}x, +${(o - b).toFixed(1)} ms (targets <= 1.2x and <= 150 ms); load ${load()}`,
    );
  }

  if (!values.only || values.only === "cache") {
    const dependencies = [
      "lodash",
      "chalk",
      "commander",
      "debug",
      "ms",
      "semver",
      "uuid",
      "yargs",
      "minimist",
      "dayjs",
      "express",
      "cors",
      "dotenv",
      "picocolors",
      "kleur",
      "mime",
      "mime-types",
      "qs",
      "cookie",
      "escape-html",
      "on-finished",
      "depd",
      "statuses",
      "http-errors",
      "bytes",
      "content-type",
      "vary",
      "etag",
      "fresh",
      "range-parser",
      "negotiator",
      "accepts",
      "type-is",
      "raw-body",
      "iconv-lite",
      "safe-buffer",
      "inherits",
      "once",
      "wrappy",
      "glob",
      "minimatch",
      "brace-expansion",
      "balanced-match",
      "ansi-regex",
      "strip-ansi",
      "string-width",
      "emoji-regex",
      "is-number",
      "to-regex-range",
      "fill-range",
    ];
    const resolve = path.join(root, "resolve");
    fs.mkdirSync(resolve);
    fs.writeFileSync(
      path.join(resolve, "package.json"),
      JSON.stringify(
        {
          name: "bench-ci",
          version: "1.0.0",
          private: true,
          dependencies: Object.fromEntries(dependencies.map((name) => [name, "*"])),
        },
        null,
        2,
      ),
    );
    execFileSync("npm", ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: resolve,
      stdio: "ignore",
    });
    const lock = fs.readFileSync(path.join(resolve, "package-lock.json"), "utf8");
    const packages = Object.keys(JSON.parse(lock).packages).filter(Boolean).length;
    const { repo, commit } = repository("deps", {
      "package.json": fs.readFileSync(path.join(resolve, "package.json"), "utf8"),
      "package-lock.json": lock,
      "index.test.js": "require('express'); require('lodash'); require('node:test')('loads', () => {});\n",
    });
    const policy =
      "{ setup: 'npm ci --no-audit --no-fund', cache: { key: [package-lock.json], paths: [node_modules] }, command: 'node --test', timeoutMs: 600000, memoryMb: 2048 }";
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < CACHE_ROUNDS; i++) {
      fs.rmSync(path.join(process.env.DATA_DIR, "runner", "cache"), { recursive: true, force: true });
      const miss = await run("p-deps", repo, commit, policy);
      if (miss.status !== "passed" || miss.cache?.hit !== false)
        throw new Error(
          `cold run: ${JSON.stringify(miss)} ${fs.readFileSync(path.join(root, `run-${logs}.log`), "utf8").slice(-2000)}`,
        );
      cold.push(miss.durationMs);
      const hit = await run("p-deps", repo, commit, policy);
      if (hit.status !== "passed" || hit.cache?.hit !== true) throw new Error(`cached run: ${JSON.stringify(hit)}`);
      warm.push(hit.durationMs);
    }
    const [c, w] = [median(cold), median(warm)];
    console.log(
      `cache (${dependencies.length} dependencies, ${packages} packages in the lockfile; npm ci then node --test; median of ${CACHE_ROUNDS}): cold ${c} ms; cache hit ${w} ms; ${(w / c).toFixed(3)}x (target <= 0.2x); load ${load()}`,
    );
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
