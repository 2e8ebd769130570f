// The cost of coordination (not a speed-up: 2 cores): production servers on one PostgreSQL and one
// REPOS_DIR behind a round-robin proxy, first one instance, then three, same proxy, same load.
// Reports GET /api/users/me requests/s and the latency of merges racing for one project (every
// change merged concurrently; `merge.requireFreshBase: false`, so a loser re-merges onto the new
// head), with the ratios three/one.
// Usage: DATABASE_URL=postgresql://... node bench/scale/run.mjs [--requests 5000] [--merges 24] [--skip-build]
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  boundedLoad,
  buildAppCopy,
  request,
  root,
  startNext,
  startRoundRobinProxy,
  stopProcess,
  waitForServer,
} from "../support/next-app.mjs";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "5000" },
    merges: { type: "string", default: "24" },
    concurrency: { type: "string", default: "16" },
    "skip-build": { type: "boolean", default: false },
  },
});
const REQUESTS = Number(values.requests);
const MERGES = Number(values.merges);
const CONCURRENCY = Number(values.concurrency);
if (!process.env.DATABASE_URL)
  throw new Error("bench/scale needs DATABASE_URL (PostgreSQL): PGlite serves one process");

const work = path.join(root, "bench/.work/scale-bench");
const app = values["skip-build"] ? path.join(work, "app") : buildAppCopy(work);
const reposDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-scale-"));
const ADMIN_KEY = "bench-key";
const BASE_PORT = 3911;

async function withInstances(count, run) {
  const ports = Array.from({ length: count }, (_, i) => BASE_PORT + i);
  const proxy = await startRoundRobinProxy(ports);
  const env = {
    REPOS_DIR: reposDir,
    BASE_URL: `http://127.0.0.1:${proxy.port}`,
    ADMIN_API_KEY: ADMIN_KEY,
    SECRET_KEY: "bench-scale-secret-key-of-at-least-32-chars",
    RATE_LIMIT_PER_MINUTE: "100000000",
  };
  const children = ports.map((port) => startNext(app, port, { ...env, DATA_DIR: path.join(reposDir, `data-${port}`) }));
  try {
    await Promise.all(children.map((child, i) => waitForServer(ports[i], child, "/api/health")));
    return await run(proxy.port);
  } finally {
    await Promise.all(children.map(stopProcess));
    await proxy.close();
  }
}

async function api(port, method, url, token, body) {
  const headers = {
    "content-type": "application/json",
    ...(token ? { authorization: `Bearer ${token}` } : { "x-admin-api-key": ADMIN_KEY }),
  };
  const res = await request(port, url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.body}`);
  return JSON.parse(res.body);
}

async function measure(instances) {
  return withInstances(instances, async (port) => {
    const { token } = await api(port, "POST", "/api/admin/users", undefined, {
      username: `bench${instances}x${Date.now()}`,
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const me = (count) =>
      boundedLoad(
        count,
        CONCURRENCY,
        async () =>
          (await request(port, "/api/users/me", { headers: { authorization: `Bearer ${token}` }, agent })).status ===
          200,
      );
    await me(Math.min(500, REQUESTS));
    const usersMe = await me(REQUESTS);
    agent.destroy();

    const policy = "merge: { requireFreshBase: false }\n";
    const project = await api(port, "POST", "/api/projects", token, {
      name: `race${instances}`,
      files: { "README.md": "r\n", ".svc/policy.yml": policy },
    });
    const changes = [];
    for (let i = 0; i < MERGES; i++) {
      await api(port, "POST", `/api/workspaces/${project.path}/workspaces`, token, { name: `r${instances}w${i}` });
      await api(port, "POST", `/api/workspaces/r${instances}w${i}/commit`, token, {
        projectId: project.id,
        message: `w${i}`,
        files: { [`w${i}.txt`]: `${i}\n` },
      });
      changes.push(
        (await api(port, "POST", `/api/projects/${project.path}/changes`, token, { workspace: `r${instances}w${i}` }))
          .change.id,
      );
    }
    const merges = await boundedLoad(
      MERGES,
      MERGES,
      async (i) =>
        (
          await request(port, `/api/changes/${changes[i]}/merge`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}` },
          })
        ).status === 200,
    );
    return { usersMe, merges };
  });
}

try {
  const one = await measure(1);
  const three = await measure(3);
  console.log(
    `\n${REQUESTS} GET /api/users/me (concurrency ${CONCURRENCY}) and ${MERGES} merges racing for one project, through one round-robin proxy, PostgreSQL\n`,
  );
  console.log("| instances | users/me req/s | users/me p99 ms | merge p50 ms | merge p99 ms | failed merges |");
  console.log("|---|---|---|---|---|---|");
  for (const [n, r] of [
    [1, one],
    [3, three],
  ]) {
    console.log(
      `| ${n} | ${r.usersMe.rps.toFixed(0)} | ${r.usersMe.p99.toFixed(1)} | ${r.merges.p50.toFixed(0)} | ${r.merges.p99.toFixed(0)} | ${r.merges.failures} |`,
    );
  }
  console.log(
    `\nthree / one: users/me throughput ${(three.usersMe.rps / one.usersMe.rps).toFixed(2)}x, merge p99 ${(three.merges.p99 / one.merges.p99).toFixed(2)}x`,
  );
} finally {
  fs.rmSync(reposDir, { recursive: true, force: true });
}
