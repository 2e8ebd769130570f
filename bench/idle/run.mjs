// Idle CPU of the production server (`node server.mjs` of a build of HEAD, embedded PGlite unless
// DATABASE_URL is set): start it, land one change through the merge queue (`merge.autoQueue: true`)
// so the queue, the executor and the event streams have all run once, let it settle, then read the
// server's CPU (its process tree, reaped children included, from /proc/<pid>/stat) over --seconds.
// Nothing should poll: an empty queue costs one indexed query a minute.
// Usage: node bench/idle/run.mjs [--seconds 60] [--settle 10] [--app <built copy> | --skip-build] [--port 3941]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildAppCopy, request, root, startNext, stopProcess, usage, waitForServer } from "../support/next-app.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    settle: { type: "string", default: "10" },
    app: { type: "string" },
    "skip-build": { type: "boolean", default: false },
    port: { type: "string", default: "3941" },
  },
});
const SECONDS = Number(values.seconds);
const PORT = Number(values.port);
const work = path.join(root, "bench/.work/idle");
const app = values.app ? path.resolve(values.app) : values["skip-build"] ? path.join(work, "app") : buildAppCopy(work);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-idle-"));
const ADMIN_KEY = "bench-idle";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function ok(method, url, token, body) {
  const headers = {
    "content-type": "application/json",
    ...(token ? { authorization: `Bearer ${token}` } : { "x-admin-api-key": ADMIN_KEY }),
  };
  const res = await request(PORT, url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.body}`);
  return JSON.parse(res.body);
}

const server = startNext(app, PORT, {
  DATA_DIR: dataDir,
  ADMIN_API_KEY: ADMIN_KEY,
  BASE_URL: `http://127.0.0.1:${PORT}`,
  LOG_LEVEL: "warn",
});
try {
  await waitForServer(PORT, server, "/api/health");
  const owner = await ok("POST", "/api/admin/users", null, { username: "idle-owner" });
  const project = await ok("POST", "/api/projects", owner.token, {
    name: "idle",
    files: { "README.md": "idle\n", ".svc/policy.yml": "merge:\n  autoQueue: true\n" },
  });
  const { token } = await ok("POST", "/api/agents", owner.token, { name: "idle-agent", model: "bench" });
  await ok("POST", `/api/workspaces/${project.path}/workspaces`, token, { name: "idle-agent" });
  await ok("POST", "/api/workspaces/idle-agent/commit", token, {
    projectId: project.id,
    message: "one",
    files: { "one.txt": "1\n" },
  });
  const { change } = await ok("POST", `/api/projects/${project.path}/changes`, token, { workspace: "idle-agent" });
  let status = change.status;
  for (let tries = 0; status !== "merged" && tries < 300; tries++) {
    await sleep(100);
    status = (await ok("GET", `/api/changes/${change.id}`, token)).change.status;
  }
  if (status !== "merged") throw new Error(`the change did not land through the queue (${status})`);
  await sleep(Number(values.settle) * 1000);

  const slices = [];
  const start = usage(server.pid, { reaped: true }).cpu;
  let previous = start;
  const slice = Math.min(10, SECONDS);
  for (let elapsed = 0; elapsed < SECONDS; elapsed += slice) {
    await sleep(slice * 1000);
    const now = usage(server.pid, { reaped: true }).cpu;
    slices.push(+(((now - previous) / slice) * 100).toFixed(2));
    previous = now;
  }
  const { rss } = usage(server.pid);
  console.log(
    JSON.stringify(
      {
        database: process.env.DATABASE_URL ? "postgres" : "pglite",
        seconds: SECONDS,
        load: os.loadavg().map((l) => +l.toFixed(2)),
        idleCpuPercentOfOneCore: +(((previous - start) / SECONDS) * 100).toFixed(2),
        per10sPercent: slices,
        rssMB: Math.round(rss / 2 ** 20),
      },
      null,
      2,
    ),
  );
} finally {
  await stopProcess(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
