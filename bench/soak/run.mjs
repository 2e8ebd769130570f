// Memory under a fleet, over time: the production server (`node server.mjs` of a build of HEAD,
// embedded PGlite, or PostgreSQL with --postgres / DATABASE_URL), N agents in the closed loop of
// bench/fleet (commit 3 files, open a change, follow its event stream until the merge queue landed
// it) for --minutes, then --idle-minutes with no load. Every --interval seconds: the server's RSS
// (/proc/<pid>/status) and, from GET /api/admin/caches, its JS heap, the embedded database's
// WebAssembly memory and every process-wide cache's size (and misses, for a cache of reads). Writes samples.tsv (the table) and
// memory.png (RSS red, JS heap committed orange and used blue, database WebAssembly memory green (its resident part purple),
// MB over minutes) into --out, and prints the verdict: RSS at the end, its slope over the last half
// of the load (least squares, MB per 1,000 landed changes and per minute) and the landing rate of
// the first vs the last 5 minutes (the first and last third when shorter).
// --snapshots 2,8: the server writes a heap snapshot (SIGUSR2, --heapsnapshot-signal) at those
// minutes from the start (of the load or of the idle time after it) into --out; `node
// bench/soak/heap-diff.mjs A B` compares two.
// Usage: node bench/soak/run.mjs [--agents 20] [--minutes 5] [--idle-minutes 0] [--interval 10]
//          [--snapshots M,M] [--out DIR] [--postgres] [--app DIR | --skip-build] [--port 3951]
//          [--env NAME=VALUE ...] (the server's environment beside bench/support's SERVER_ENV: a setting to compare)
//          [--keep-data] (leaves the server's data directory, repositories and embedded database, to study after)
//          [--data-dir DIR] (starts on a kept data directory, its projects and history, and leaves it; with --name)
//          [--name soak] (the fleet's owner and project: another on a kept data directory)
//          [--cpu-prof] (the server's CPU profile of the whole soak into --out)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fleetClient, runAgents, setUpFleet } from "../support/fleet-agents.mjs";
import { buildAppCopy, root, startNext, stopProcess, waitForServer } from "../support/next-app.mjs";
import { plotPng } from "../support/png-plot.mjs";
import { wasmResidentOf } from "../support/wasm-resident.mjs";
import { startPostgres } from "../support/postgres.mjs";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "20" },
    minutes: { type: "string", default: "5" },
    "idle-minutes": { type: "string", default: "0" },
    interval: { type: "string", default: "10" },
    snapshots: { type: "string", default: "" },
    out: { type: "string" },
    postgres: { type: "boolean", default: false },
    app: { type: "string" },
    "skip-build": { type: "boolean", default: false },
    port: { type: "string", default: "3951" },
    env: { type: "string", multiple: true, default: [] },
    "keep-data": { type: "boolean", default: false },
    "data-dir": { type: "string" },
    name: { type: "string", default: "soak" },
    "cpu-prof": { type: "boolean", default: false },
  },
});
const AGENTS = Number(values.agents);
const LOAD_MS = Number(values.minutes) * 60_000;
const IDLE_MS = Number(values["idle-minutes"]) * 60_000;
const INTERVAL_MS = Number(values.interval) * 1000;
const SNAPSHOTS_MS = values.snapshots ? values.snapshots.split(",").map((m) => Number(m) * 60_000) : [];
const PORT = Number(values.port);
const DRAIN_MS = 30_000;
const MB = 2 ** 20;

const work = path.join(root, "bench/.work/soak");
const app = values.app ? path.resolve(values.app) : values["skip-build"] ? path.join(work, "app") : buildAppCopy(work);
const out = path.resolve(values.out ?? path.join(work, new Date().toISOString().replace(/[:.]/g, "-")));
fs.mkdirSync(out, { recursive: true });
const keepData = values["keep-data"] || values["data-dir"] !== undefined;
const dataDir = values["data-dir"]
  ? path.resolve(values["data-dir"])
  : fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-soak-"));
const ADMIN_KEY = "bench-soak";
const postgres = !process.env.DATABASE_URL && values.postgres ? await startPostgres() : null;
const databaseUrl = process.env.DATABASE_URL ?? postgres?.url;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
const serverEnv = Object.fromEntries(
  values.env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? null : points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
}

const server = startNext(
  app,
  PORT,
  {
    DATA_DIR: dataDir,
    ADMIN_API_KEY: ADMIN_KEY,
    BASE_URL: `http://127.0.0.1:${PORT}`,
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "100000000",
    ...serverEnv,
    NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${out} ${serverEnv.NODE_OPTIONS ?? ""}`.trim(),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, REPOS_DIR: path.join(dataDir, "repos") } : {}),
  },
  { profileDir: values["cpu-prof"] ? out : undefined },
);
const client = fleetClient(PORT, ADMIN_KEY);
const samples = [];
try {
  await waitForServer(PORT, server, "/api/health");
  const land = (agent, change, until) => client.landedByStream(change.id, agent.token, until);
  const fleet = await setUpFleet(client, {
    count: AGENTS,
    policy: "merge:\n  autoQueue: true\n",
    name: values.name,
    land,
  });

  const landedAt = []; // ms since start of each landing
  const started = performance.now();
  const deadline = started + LOAD_MS;
  const elapsed = () => performance.now() - started;
  let sampling = true;
  const sampler = (async () => {
    for (let next = 0; sampling; next += INTERVAL_MS) {
      await sleep(Math.max(0, next - elapsed()));
      if (!sampling) break;
      const reported = await client.api("GET", "/api/admin/caches", null);
      const memory = reported.status === 200 ? reported.body.memory : null;
      const caches =
        reported.status === 200
          ? Object.fromEntries(
              reported.body.caches.flatMap((c) => [
                [c.name, c.entries],
                ...(c.misses === undefined ? [] : [[`${c.name}.misses`, c.misses]]),
              ]),
            )
          : {};
      samples.push({
        seconds: Math.round(elapsed() / 1000),
        landed: landedAt.length,
        rss: rssOf(server.pid),
        heapUsed: memory?.heapUsedBytes,
        heapTotal: memory?.heapTotalBytes,
        external: memory?.externalBytes,
        arrayBuffers: memory?.arrayBuffersBytes,
        database: memory?.databaseWasmBytes,
        databaseResident: wasmResidentOf(server.pid),
        databaseHeap: memory?.databaseHeapUsedBytes,
        caches,
      });
    }
  })();
  const snapshots = SNAPSHOTS_MS.map((at) =>
    sleep(at).then(() => elapsed() < LOAD_MS + IDLE_MS && server.kill("SIGUSR2")),
  );
  await runAgents(client, fleet, {
    deadline,
    drainMs: DRAIN_MS,
    land,
    onCycle: ({ merged, t3 }) => merged && t3 <= deadline + DRAIN_MS && landedAt.push(t3 - started),
  });
  const loadEnd = elapsed();
  await sleep(Math.max(0, LOAD_MS + IDLE_MS - elapsed()));
  sampling = false;
  await sampler;
  await Promise.all(snapshots);

  const loaded = samples.filter((s) => s.seconds * 1000 <= loadEnd);
  const lastHalf = loaded.filter((s) => s.seconds * 1000 >= loadEnd / 2);
  const window = Math.min(5 * 60_000, LOAD_MS / 3);
  const rate = (from, to) => landedAt.filter((at) => at > from && at <= to).length / ((to - from) / 1000);
  const firstRate = rate(0, window);
  const lastRate = rate(LOAD_MS - window, LOAD_MS);
  const perThousand = slope(lastHalf.map((s) => [s.landed / 1000, s.rss / MB]));
  const perMinute = slope(lastHalf.map((s) => [s.seconds / 60, s.rss / MB]));
  const idle = samples.filter((s) => s.seconds * 1000 > loadEnd);
  const mb = (bytes) => (bytes === undefined || bytes === null ? "" : (bytes / MB).toFixed(1));
  const cacheNames = [...new Set(samples.flatMap((s) => Object.keys(s.caches)))];
  const table = [
    [
      "seconds",
      "landed",
      "rssMB",
      "heapUsedMB",
      "heapTotalMB",
      "externalMB",
      "arrayBuffersMB",
      "databaseWasmMB",
      "databaseWasmResidentMB",
      "databaseHeapUsedMB",
      ...cacheNames,
    ].join("\t"),
    ...samples.map((s) =>
      [
        s.seconds,
        s.landed,
        mb(s.rss),
        mb(s.heapUsed),
        mb(s.heapTotal),
        mb(s.external),
        mb(s.arrayBuffers),
        mb(s.database),
        mb(s.databaseResident),
        mb(s.databaseHeap),
        ...cacheNames.map((name) => s.caches[name] ?? ""),
      ].join("\t"),
    ),
  ];
  fs.writeFileSync(path.join(out, "samples.tsv"), `${table.join("\n")}\n`);
  const line = (field, color) => ({
    points: samples.filter((s) => s[field] != null).map((s) => [s.seconds / 60, s[field] / MB]),
    color,
  });
  fs.writeFileSync(
    path.join(out, "memory.png"),
    plotPng([
      line("rss", [220, 40, 40]),
      line("heapTotal", [240, 150, 30]),
      line("heapUsed", [40, 80, 220]),
      line("database", [40, 160, 60]),
      line("databaseResident", [150, 60, 180]),
    ]),
  );
  const first = samples[0];
  const endOfLoad = loaded.at(-1);
  console.log(
    JSON.stringify(
      {
        database: databaseUrl ? "postgres" : "pglite",
        agents: AGENTS,
        minutes: LOAD_MS / 60_000,
        idleMinutes: IDLE_MS / 60_000,
        load: os.loadavg().map((l) => +l.toFixed(2)),
        landed: landedAt.length,
        rssMB: {
          start: +mb(first?.rss),
          endOfLoad: +mb(endOfLoad?.rss),
          max: +mb(Math.max(...samples.map((s) => s.rss))),
          endOfIdle: idle.length ? +mb(idle.at(-1).rss) : null,
        },
        heapUsedMB: { start: +mb(first?.heapUsed) || null, endOfLoad: +mb(endOfLoad?.heapUsed) || null },
        heapTotalMB: { start: +mb(first?.heapTotal) || null, endOfLoad: +mb(endOfLoad?.heapTotal) || null },
        databaseWasmMB: { start: +mb(first?.database) || null, endOfLoad: +mb(endOfLoad?.database) || null },
        databaseWasmResidentMB: { start: +mb(first?.databaseResident), endOfLoad: +mb(endOfLoad?.databaseResident) },
        externalMB: { start: +mb(first?.external) || null, endOfLoad: +mb(endOfLoad?.external) || null },
        serverEnv,
        lastHalfSlope: {
          mbPer1000Changes: perThousand === null ? null : +perThousand.toFixed(2),
          mbPerMinute: perMinute === null ? null : +perMinute.toFixed(2),
        },
        idleSlopeMbPerMinute: idle.length > 1 ? +slope(idle.map((s) => [s.seconds / 60, s.rss / MB])).toFixed(2) : null,
        landedPerSecond: {
          first: +firstRate.toFixed(2),
          last: +lastRate.toFixed(2),
          windowMinutes: +(window / 60_000).toFixed(2),
          lastOverFirst: firstRate ? +(lastRate / firstRate).toFixed(3) : null,
        },
        ...client.counters,
        out,
      },
      null,
      2,
    ),
  );
  if (client.counters.status5xx > 0 || client.counters.networkErrors > 0) process.exitCode = 1;
} finally {
  await stopProcess(server);
  postgres?.stop();
  if (keepData) console.log(`data kept in ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}
