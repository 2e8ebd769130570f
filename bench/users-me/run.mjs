// GET /api/users/me with a bearer token under `next start`, beside a bare Next.js route handler
// returning the same JSON (bare-route.js, added only to a throwaway copy of HEAD built under
// bench/.work/). One server on loopback; a bounded keep-alive load generator drives each route in
// turn; reports requests/s, p50/p99, server CPU per request (from /proc) and RSS.
// Usage: node bench/users-me/run.mjs [--requests 20000] [--concurrency 16] [--skip-build | --app DIR]
// (--app: a build made elsewhere, without the bare route: GET /api/users/me alone, no ratio; what
// bench:smoke runs on CI's shared build instead of a build of its own)
// (DATABASE_URL=postgresql://... runs the server on PostgreSQL instead of PGlite under DATA_DIR)
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  boundedLoad,
  buildAppCopy,
  request,
  root,
  startNext,
  stopProcess,
  usage,
  waitForServer,
} from "../support/next-app.mjs";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "16" },
    warmup: { type: "string", default: "2000" },
    "skip-build": { type: "boolean", default: false },
    app: { type: "string" },
  },
});
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const WARMUP = Number(values.warmup);
const work = path.join(root, "bench/.work/users-me");

const addBareRoute = (app) => {
  fs.mkdirSync(path.join(app, "app/api/bench/bare"), { recursive: true });
  fs.copyFileSync(path.join(import.meta.dirname, "bare-route.js"), path.join(app, "app/api/bench/bare/route.js"));
};

/** Bounded load: exactly `count` requests, at most CONCURRENCY in flight. */
async function load(port, urlPath, headers, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const result = await boundedLoad(
    count,
    CONCURRENCY,
    async () => (await request(port, urlPath, { headers, agent })).status === 200,
  );
  agent.destroy();
  return result;
}

const PORT = 3901;
const withBare = !values.app;
const app = values.app
  ? path.resolve(values.app)
  : values["skip-build"]
    ? path.join(work, "app")
    : buildAppCopy(work, addBareRoute);
const dataDir = path.join(work, "data");
fs.rmSync(dataDir, { recursive: true, force: true });
const child = startNext(app, PORT, {
  DATA_DIR: dataDir,
  ADMIN_API_KEY: "bench-key",
  RATE_LIMIT_PER_MINUTE: "100000000",
});
const results = [];
let rss;
try {
  await waitForServer(PORT, child);
  const created = await request(PORT, "/api/admin/users", {
    method: "POST",
    headers: { "x-admin-api-key": "bench-key", "content-type": "application/json" },
    body: JSON.stringify({ username: `bench${Date.now()}` }),
  });
  if (created.status !== 201) throw new Error(`creating the bench user failed: ${created.status} ${created.body}`);
  const routes = [
    ...(withBare
      ? [{ name: "bare route handler (no auth, no tRPC, no database)", path: "/api/bench/bare", headers: {} }]
      : []),
    {
      name: "GET /api/users/me, bearer token",
      path: "/api/users/me",
      headers: { authorization: `Bearer ${JSON.parse(created.body).token}` },
    },
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
  await stopProcess(child);
}

console.log(
  `\n${REQUESTS} requests per route, concurrency ${CONCURRENCY}, loopback, load generator on the same machine\n`,
);
console.log("| route | req/s | p50 ms | p99 ms | server CPU ms/req | non-200 |");
console.log("|---|---|---|---|---|---|");
for (const r of results)
  console.log(
    `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.cpuMsPerRequest.toFixed(3)} | ${r.failures} |`,
  );
console.log(
  `\nserver RSS: ${rss.idle.toFixed(0)} MB idle (after start-up and warm-up), ${rss.after.toFixed(0)} MB after the load`,
);
const refused = results.filter((r) => r.failures > 0);
if (refused.length) {
  console.error(`non-200 answers: ${refused.map((r) => `${r.name} (${r.failures})`).join(", ")}`);
  process.exitCode = 1;
}
if (withBare) {
  const [bare, authed] = results;
  console.log(
    `CPU per request, authenticated / bare: ${(authed.cpuMsPerRequest / bare.cpuMsPerRequest).toFixed(2)}x (target <= 1.5x)`,
  );
}
