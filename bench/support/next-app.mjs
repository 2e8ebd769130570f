// Shared by benchmarks that run the real app under `next start`: a throwaway build of HEAD under
// bench/.work/, the server's process tree CPU from /proc, and a small HTTP client.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");
export const benchEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" };
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "ignore", "inherit"], env: benchEnv });

/**
 * Builds the app as committed (HEAD) into `<work>/app`, so work in progress in the tree does not
 * leak in; `customize(app)` may add files first. Type errors elsewhere do not stop the build. The
 * copy's own scripts/build.mjs builds it, as `npm run build` would. Its output goes to
 * `<work>/next-build.log` (scripts/check-build.mjs reads it), and to stderr on failure.
 */
export function buildAppCopy(work, customize = () => {}) {
  const app = path.join(work, "app");
  fs.rmSync(app, { recursive: true, force: true });
  fs.mkdirSync(app, { recursive: true });
  execFileSync("sh", ["-c", `git -C "${root}" archive HEAD | tar -x -C "${app}"`]);
  customize(app);
  fs.renameSync(path.join(app, "next.config.mjs"), path.join(app, "next.base.config.mjs"));
  fs.writeFileSync(
    path.join(app, "next.config.mjs"),
    `import base from "./next.base.config.mjs";\nexport default { ...base, typescript: { ignoreBuildErrors: true }, turbopack: { root: ${JSON.stringify(root)} } };\n`,
  );
  fs.symlinkSync(path.join(root, "node_modules"), path.join(app, "node_modules"));
  sh("npx", ["prisma", "generate"], app);
  const started = Date.now();
  const log = path.join(work, "next-build.log");
  const out = fs.openSync(log, "w");
  try {
    execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: app, stdio: ["ignore", out, out], env: benchEnv });
  } catch (error) {
    process.stderr.write(fs.readFileSync(log));
    throw error;
  } finally {
    fs.closeSync(out);
  }
  console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return app;
}

/**
 * A build of HEAD without customization: the one SVC_E2E_APP names (made once by .ci/run and shared
 * by the CLI, crash and scale tests, Playwright and the benchmarks), else a fresh buildAppCopy(work).
 */
export function sharedAppBuild(work) {
  return process.env.SVC_E2E_APP ? path.resolve(root, process.env.SVC_E2E_APP) : buildAppCopy(work);
}

/**
 * glibc's malloc gives each thread that allocates an arena of its own (up to 8 per core), and V8's
 * and libuv's worker threads leave them partly used: two arenas hold the same server in about 12 MB
 * less (bench/users-me). Past a fixed 32 KB a block is mapped and given back when freed: glibc's own
 * threshold rises with the largest block freed so far (a pack, a response), and from then on such
 * blocks fill the arenas, which do not shrink (bench/soak: 420 -> 365 MB after 2 minutes of 50 agents
 * at 128 KB). 32 KB is the size of V8's compiler scratch: tiering PGlite's WebAssembly up at start
 * takes 80-100 MB of it for a moment, which otherwise stays in the arenas (docs/soak, round 5).
 * `npm start` and `npm run serve` set them, so the benchmarks measure what users run.
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "32768", MALLOC_TRIM_THRESHOLD_: "131072" };

/**
 * The production server (`node server.mjs` with SERVER_ENV, what `npm start` runs) of a built copy on 127.0.0.1:`port`. `detached` puts it in a process group of its
 * own, so `process.kill(-child.pid, "SIGKILL")` takes down the whole server at once (a crash).
 * `logFile` keeps its request log (stdout); otherwise it is dropped.
 */
export function startNext(app, port, env, { detached = false, logFile, profileDir } = {}) {
  const stdout = logFile ? fs.openSync(logFile, "w") : "ignore";
  // A CPU profile is written when the process exits normally, and SIGTERM would end it without one.
  const profile = profileDir
    ? [
        "--cpu-prof",
        `--cpu-prof-dir=${profileDir}`,
        "--import",
        `data:text/javascript,process.once("SIGTERM",()=>process.exit(0))`,
      ]
    : [];
  return spawn(process.execPath, [...profile, "server.mjs"], {
    cwd: app,
    env: { ...benchEnv, ...SERVER_ENV, PORT: String(port), HOST: "127.0.0.1", ...env },
    stdio: ["ignore", stdout, "inherit"],
    detached,
  });
}

export async function stopProcess(child) {
  child.kill("SIGTERM");
  await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
}

const treeOf = (pid) => {
  const children = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) children.push(...treeOf(Number(entry)));
    } catch {
      // the process ended while it was read
    }
  }
  return [pid, ...children];
};

/**
 * Samples, every `everyMs`, the CPU of each live process under the children of `parentPid` whose
 * command line contains `commandPart` (those children included); `stop()` answers the CPU seconds
 * seen. For what rusage cannot count: a sandbox's processes (bwrap's PID namespace) never reach
 * their ancestors' reaped-children times. What a process uses in its last interval, and a process
 * shorter than one, go unseen. One pass over /proc a tick (~17 ms of CPU a second here).
 */
export function sampleTreeCpu(parentPid, commandPart, everyMs = 200) {
  const seen = new Map();
  const matches = new Map();
  const tick = () => {
    const processes = new Map();
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        processes.set(Number(entry), {
          parent: Number(fields[1]),
          key: `${entry}:${fields[19]}`,
          ticks: Number(fields[11]) + Number(fields[12]),
        });
      } catch {
        // the process ended while it was read
      }
    }
    const inTree = new Set();
    for (const [pid, { parent, key }] of processes) {
      if (parent !== parentPid) continue;
      if (!matches.has(key)) {
        try {
          matches.set(key, fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(commandPart));
        } catch {
          matches.set(key, false);
        }
      }
      if (matches.get(key)) inTree.add(pid);
    }
    for (let grew = inTree.size > 0; grew;) {
      grew = false;
      for (const [pid, { parent }] of processes)
        if (!inTree.has(pid) && inTree.has(parent)) grew = Boolean(inTree.add(pid));
    }
    for (const pid of inTree) {
      const { key, ticks } = processes.get(pid);
      seen.set(key, Math.max(seen.get(key) ?? 0, ticks));
    }
  };
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return [...seen.values()].reduce((sum, ticks) => sum + ticks, 0) / CLK_TCK;
    },
  };
}

/**
 * CPU seconds (user+system) and RSS bytes of a process and its descendants (only itself without
 * `tree`); with `reaped`, CPU
 * also counts children the process has already waited for (short-lived git processes).
 */
export function usage(pid, { reaped = false, tree = true } = {}) {
  let ticks = 0;
  let rss = 0;
  for (const p of tree ? treeOf(pid) : [pid]) {
    try {
      const fields = fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
      rss += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"))[1]) * 1024;
    } catch {
      // the process ended while it was read
    }
  }
  return { cpu: ticks / CLK_TCK, rss };
}

export function request(port, urlPath, { method = "GET", headers = {}, body, agent } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: urlPath, method, headers, agent, timeout: 30_000 },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("request timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Resolves once `urlPath` answers at all; fails when `child` exits first or after `timeoutMs`. The
 * first `/api/health` of a new DATA_DIR creates the embedded database (initdb, then migrations):
 * about 10 s of CPU on an idle machine, and past 90 s on CI's two cores while both test passes run
 * (tests/crash/kill9.test.ts, stop 60).
 */
export async function waitForServer(port, child, urlPath = "/health", timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error("server exited during start-up");
    try {
      await request(port, urlPath);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error("server did not start");
}

/**
 * A load balancer reduced to what the operator guide asks of one: round-robin over `ports` on
 * 127.0.0.1, bodies streamed both ways, and a backend that refuses connections skipped (a passive
 * health check; safe, since nothing reached it). Resolves to its port and a close().
 */
export function startRoundRobinProxy(ports) {
  let next = 0;
  const server = http.createServer(async (req, res) => {
    const body = [];
    for await (const chunk of req) body.push(chunk);
    const attempt = (tries) => {
      const port = ports[next++ % ports.length];
      const upstream = http.request(
        { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", (error) => {
        if (error.code === "ECONNREFUSED" && tries < ports.length) return attempt(tries + 1);
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      upstream.end(Buffer.concat(body));
    };
    attempt(1);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: server.address().port,
        close: () => new Promise((done) => (server.closeAllConnections(), server.close(() => done()))),
      }),
    ),
  );
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Bounded load: exactly `count` calls of `send(index)`, at most `concurrency` in flight; latencies in ms. */
export async function boundedLoad(count, concurrency, send) {
  const latencies = new Float64Array(count);
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const t0 = performance.now();
        if (!(await send(index))) failures++;
        latencies[index] = performance.now() - t0;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const sorted = Array.from(latencies).sort((a, b) => a - b);
  return { rps: count / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), failures };
}
