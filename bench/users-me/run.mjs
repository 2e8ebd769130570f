// GET /api/users/me with a bearer token under `next start`, beside a bare Next.js route handler
// returning the same JSON (bare-route.js, added only to a throwaway copy of HEAD built under
// bench/.work/). One server on loopback; a bounded keep-alive load generator drives each route in
// turn; reports requests/s, p50/p99, server CPU per request (from /proc) and RSS.
// Usage: node bench/users-me/run.mjs [--requests 20000] [--concurrency 16] [--skip-build]
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "16" },
    warmup: { type: "string", default: "2000" },
    "skip-build": { type: "boolean", default: false },
  },
});
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const WARMUP = Number(values.warmup);
const root = path.resolve(import.meta.dirname, "../..");
const work = path.join(root, "bench/.work/users-me");
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" };

function sh(cmd, args, cwd, extraEnv = {}) {
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "ignore", "inherit"], env: { ...env, ...extraEnv } });
}

/** The app as committed (HEAD), so work in progress in the tree does not leak in, plus the bare route. */
function prepare() {
  fs.rmSync(work, { recursive: true, force: true });
  const app = path.join(work, "app");
  fs.mkdirSync(app, { recursive: true });
  execFileSync("sh", ["-c", `git -C "${root}" archive HEAD | tar -x -C "${app}"`]);
  fs.mkdirSync(path.join(app, "app/api/bench/bare"), { recursive: true });
  fs.copyFileSync(path.join(import.meta.dirname, "bare-route.js"), path.join(app, "app/api/bench/bare/route.js"));
  // The bench measures run time: a type error elsewhere in the tree must not stop the build.
  fs.renameSync(path.join(app, "next.config.ts"), path.join(app, "next.base.config.ts"));
  fs.writeFileSync(
    path.join(app, "next.config.ts"),
    'import base from "./next.base.config";\nexport default { ...base, typescript: { ignoreBuildErrors: true } };\n',
  );
  fs.symlinkSync(path.join(root, "node_modules"), path.join(app, "node_modules"));
  sh("npx", ["prisma", "generate"], app);
  const started = Date.now();
  sh("npx", ["next", "build"], app);
  console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return app;
}

const treeOf = (pid) => {
  const children = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(...treeOf(Number(entry)));
    } catch {}
  }
  return [pid, ...children];
};

/** CPU seconds (user+system) and RSS bytes of a process and its descendants. */
function usage(pid) {
  let ticks = 0;
  let rss = 0;
  for (const p of treeOf(pid)) {
    try {
      const fields = fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
      rss += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"))[1]) * 1024;
    } catch {}
  }
  return { cpu: ticks / CLK_TCK, rss };
}

function request(agent, port, urlPath, headers, method = "GET", body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: urlPath, method, headers, agent, timeout: 10_000 }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on("timeout", () => req.destroy(new Error("request timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

/** Bounded load: exactly `count` requests, at most `concurrency` in flight. */
async function load(port, urlPath, headers, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies = new Float64Array(count);
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const index = next++;
        const t0 = performance.now();
        const res = await request(agent, port, urlPath, headers);
        latencies[index] = performance.now() - t0;
        if (res.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = Array.from(latencies).sort((a, b) => a - b);
  const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  return { rps: count / seconds, p50: pct(50), p99: pct(99), failures };
}

async function waitForPort(port, child) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error("server exited during start-up");
    try {
      await request(undefined, port, "/health", {});
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error("server did not start");
}

const PORT = 3901;
const app = values["skip-build"] ? path.join(work, "app") : prepare();
const dataDir = path.join(work, "data");
fs.rmSync(dataDir, { recursive: true, force: true });
const child = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(PORT), "-H", "127.0.0.1"], {
  cwd: app,
  env: { ...env, PORT: String(PORT), DATA_DIR: dataDir, ADMIN_API_KEY: "bench-key", RATE_LIMIT_PER_MINUTE: "100000000" },
  stdio: ["ignore", "ignore", "inherit"],
});
const results = [];
let rss;
try {
  await waitForPort(PORT, child);
  const created = await request(undefined, PORT, "/api/admin/users", { "x-admin-api-key": "bench-key", "content-type": "application/json" }, "POST", JSON.stringify({ username: `bench${Date.now()}` }));
  if (created.status !== 201) throw new Error(`creating the bench user failed: ${created.status} ${created.body}`);
  const routes = [
    { name: "bare route handler (no auth, no tRPC, no database)", path: "/api/bench/bare", headers: {} },
    { name: "GET /api/users/me, bearer token", path: "/api/users/me", headers: { authorization: `Bearer ${JSON.parse(created.body).token}` } },
  ];
  for (const route of routes) await load(PORT, route.path, route.headers, WARMUP);
  await new Promise((r) => setTimeout(r, 1000));
  const idle = usage(child.pid);
  let before = idle;
  for (const route of routes) {
    const result = await load(PORT, route.path, route.headers, REQUESTS);
    const after = usage(child.pid);
    results.push({ name: route.name, ...result, cpuMsPerRequest: ((after.cpu - before.cpu) * 1000) / REQUESTS });
    before = after;
  }
  rss = { idle: idle.rss / 2 ** 20, after: before.rss / 2 ** 20 };
} finally {
  child.kill("SIGTERM");
  await new Promise((r) => (child.exitCode !== null ? r() : child.once("exit", r)));
}

console.log(`\n${REQUESTS} requests per route, concurrency ${CONCURRENCY}, loopback, load generator on the same machine\n`);
console.log("| route | req/s | p50 ms | p99 ms | server CPU ms/req | non-200 |");
console.log("|---|---|---|---|---|---|");
for (const r of results) console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.cpuMsPerRequest.toFixed(3)} | ${r.failures} |`);
console.log(`\nserver RSS: ${rss.idle.toFixed(0)} MB idle (after start-up and warm-up), ${rss.after.toFixed(0)} MB after the load`);
const [bare, authed] = results;
console.log(`CPU per request, authenticated / bare: ${(authed.cpuMsPerRequest / bare.cpuMsPerRequest).toFixed(2)}x (target <= 1.5x)`);
