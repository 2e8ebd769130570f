// A fleet of agents of one owner on one project, against the production server (`node server.mjs`
// of a build of HEAD; embedded PGlite, or PostgreSQL with --instances > 1 / --postgres / DATABASE_URL).
// Each agent loops: commit 3 new files to its own workspace, open a change, wait until it has
// landed (the change's event stream, GET /api/changes/{id}/events, ends when it merges). Who lands it:
//   --mode autoQueue  (default) the policy has `merge.autoQueue: true` and the merge queue lands it;
//   --mode owner      the owner merges each change as it opens (one merger, FIFO); on STALE_BASE
//                     it re-evaluates the change and merges again (what a person or bot did before the queue).
// With --instances N (N > 1 needs PostgreSQL: a throwaway cluster is started unless DATABASE_URL is
// set) N servers share one database and one REPOS_DIR behind a round-robin proxy (bench/support).
// Reports changes landed per second (in the run's window), commit -> merged p50/p99, changes opened
// before the end that had not merged 30 s after it, STALE_BASE answers, 5xx, and the git plumbing
// cycle (hash-object, update-index, write-tree, commit-tree, update-ref, diff-tree, merge-tree
// --write-tree, commit-tree, update-ref) timed in the same invocation as the baseline.
// Usage: node bench/fleet/run.mjs [--agents 10] [--seconds 60] [--mode autoQueue|owner] [--instances 1]
//                                 [--postgres] [--app <built copy> | --skip-build] [--port 3931] [--profile DIR]
// --profile DIR: each server writes a CPU profile of its whole life into DIR (node --cpu-prof);
// `node bench/support/profile-summary.mjs FILE` sums one by package and function.
// --request-log PREFIX: each server logs its requests (LOG_LEVEL=info, one JSON line each, with the
// handler's duration) into PREFIX.<port>.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fleetClient, fileText, runAgents, setUpFleet } from "../support/fleet-agents.mjs";
import {
  buildAppCopy,
  root,
  startNext,
  startRoundRobinProxy,
  stopProcess,
  usage,
  waitForServer,
} from "../support/next-app.mjs";
import { plumbingCycles } from "../support/plumbing.mjs";
import { startPostgres } from "../support/postgres.mjs";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "10" },
    seconds: { type: "string", default: "60" },
    mode: { type: "string", default: "autoQueue" },
    instances: { type: "string", default: "1" },
    postgres: { type: "boolean", default: false },
    app: { type: "string" },
    "skip-build": { type: "boolean", default: false },
    port: { type: "string", default: "3931" },
    "plumbing-cycles": { type: "string", default: "30" },
    profile: { type: "string" },
    "request-log": { type: "string" },
  },
});
const AGENTS = Number(values.agents);
const SECONDS = Number(values.seconds);
const MODE = values.mode;
const INSTANCES = Number(values.instances);
/** How long after the end a change opened before it may take to merge and still count. */
const DRAIN_MS = 30_000;
if (!["owner", "autoQueue"].includes(MODE)) throw new Error(`--mode is autoQueue or owner, not ${MODE}`);

const work = path.join(root, "bench/.work/fleet");
const app = values.app ? path.resolve(values.app) : values["skip-build"] ? path.join(work, "app") : buildAppCopy(work);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-fleet-"));
const ADMIN_KEY = "bench-fleet";
const postgres = !process.env.DATABASE_URL && (INSTANCES > 1 || values.postgres) ? await startPostgres() : null;
const databaseUrl = process.env.DATABASE_URL ?? postgres?.url;

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
const round = (value) => (value === null ? null : Math.round(value));
const sorted = (xs) => [...xs].sort((a, b) => a - b);

// Servers on BASE_PORT.. and, with several, a round-robin proxy in front: the agents see one port.
const BASE_PORT = Number(values.port);
const ports = Array.from({ length: INSTANCES }, (_, i) => BASE_PORT + i);
const env = {
  ADMIN_API_KEY: ADMIN_KEY,
  RATE_LIMIT_PER_MINUTE: "100000000",
  LOG_LEVEL: values["request-log"] ? "info" : "warn",
  SECRET_KEY: "bench-fleet-secret-key-of-at-least-32-chars",
  AUTH_SECRET: "bench-fleet-auth-secret-shared-by-every-instance",
  ...(databaseUrl ? { DATABASE_URL: databaseUrl, REPOS_DIR: path.join(dataDir, "repos") } : {}),
};
const proxy = INSTANCES > 1 ? await startRoundRobinProxy(ports) : null;
const PORT = proxy?.port ?? BASE_PORT;
const servers = [];

const client = fleetClient(PORT, ADMIN_KEY);
const { counters, api, ok, landedByStream } = client;

try {
  // One at a time: concurrent start-ups would race to apply the migrations to the one database.
  for (const port of ports) {
    const server = startNext(
      app,
      port,
      { ...env, DATA_DIR: path.join(dataDir, `data-${port}`), BASE_URL: `http://127.0.0.1:${PORT}` },
      {
        profileDir: values.profile && path.resolve(values.profile),
        logFile: values["request-log"] && `${path.resolve(values["request-log"])}.${port}`,
      },
    );
    servers.push(server);
    await waitForServer(port, server, "/api/health");
  }
  const policy = MODE === "autoQueue" ? "merge:\n  autoQueue: true\n" : "merge:\n  requireFreshBase: true\n";
  const byStream = (agent, change, until) => landedByStream(change.id, agent.token, until);
  const warmLand =
    MODE === "owner"
      ? async (agent, change, until, { owner }) => (
          await ok("POST", `/api/changes/${change.id}/merge`, owner.token),
          true
        )
      : byStream;
  const fleet = await setUpFleet(client, { count: AGENTS, policy, land: warmLand });
  const { owner, projectPath } = fleet;

  const landed = []; // {latency: commit -> merged ms, at: ms since start}
  const steps = { commit: [], open: [], land: [] };
  let opened = 0;
  let unmerged = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const cpuBefore = servers.map((s) => usage(s.pid, { reaped: true }).cpu);
  // The agents run in this process: on a machine they share with the server, their CPU is not the server's to spend.
  const agentsCpuBefore = process.cpuUsage();

  // Owner mode: one merger takes opened changes in order.
  const mergeQueue = [];
  let wakeMerger = null;
  async function ownerMerges(change) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const res = await api("POST", `/api/changes/${change.id}/merge`, owner.token);
      if (res.status === 200) return true;
      if (res.body?.code === "STALE_BASE") {
        counters.reevaluations++;
        const evaluated = await api("POST", `/api/changes/${change.id}/evaluate`, owner.token);
        if (evaluated.status !== 200) break;
        continue;
      }
      if (res.body?.code === "MERGE_CONFLICT") counters.mergeConflicts++;
      else counters.otherFailures++;
      return false;
    }
    return false;
  }
  let merging = true;
  const merger = (async () => {
    while (merging || mergeQueue.length) {
      const next = mergeQueue.shift();
      if (!next) {
        await new Promise((resolve) => (wakeMerger = resolve));
        continue;
      }
      next.done(await ownerMerges(next.change));
    }
  })();
  const landedByOwner = (change) => new Promise((done) => (mergeQueue.push({ change, done }), wakeMerger?.()));

  await runAgents(client, fleet, {
    deadline,
    drainMs: DRAIN_MS,
    land: MODE === "owner" ? (agent, change) => landedByOwner(change) : byStream,
    onCycle: ({ t0, t1, t2, t3, opened: open, merged }) => {
      steps.commit.push(t1 - t0);
      steps.open.push(t2 - t1);
      if (!open) return;
      opened++;
      if (merged && t3 <= deadline + DRAIN_MS) {
        landed.push({ latency: t3 - t0, at: t3 - started });
        steps.land.push(t3 - t2);
      } else unmerged++;
    },
  });
  merging = false;
  wakeMerger?.();
  await merger;
  const serverCpu = servers.reduce((sum, s, i) => sum + usage(s.pid, { reaped: true }).cpu - cpuBefore[i], 0);
  const { user, system } = process.cpuUsage(agentsCpuBefore);
  const agentsCpuMs = (user + system) / 1000;

  // A landing's changes share its transaction's mergedAt: the latest 500 merged changes tell the batch sizes.
  const merged = (await ok("GET", `/api/projects/${projectPath}/changes?status=merged&limit=500`, owner.token)).changes;
  const landings = new Set(merged.map((change) => change.mergedAt)).size;

  const plumbing = plumbingCycles(Number(values["plumbing-cycles"]), {
    files: (cycle) => Object.fromEntries([0, 1, 2].map((i) => [`agent/c${cycle}/f${i}.ts`, fileText(0, cycle, i)])),
  });
  const latencies = sorted(landed.map((l) => l.latency));
  const inWindow = landed.filter((l) => l.at <= SECONDS * 1000).length;
  const p50 = (xs) => round(percentile(sorted(xs), 0.5));
  console.log(
    JSON.stringify(
      {
        mode: MODE,
        agents: AGENTS,
        seconds: SECONDS,
        database: databaseUrl ? "postgres" : "pglite",
        instances: INSTANCES,
        load: os.loadavg().map((l) => +l.toFixed(2)),
        opened,
        landed: landed.length,
        unmergedWithin30sAfterEnd: unmerged,
        landedPerSecond: +(inWindow / SECONDS).toFixed(2),
        // Whether the rate holds over the run (history and tables grow) or only its start is fast.
        landedPerSecondBy10s: Array.from(
          { length: Math.ceil(SECONDS / 10) },
          (_, w) =>
            landed.filter((l) => l.at > w * 10_000 && l.at <= Math.min(w + 1, SECONDS / 10) * 10_000).length /
            Math.min(10, SECONDS - w * 10),
        ),
        commitToMergedMs: { p50: round(percentile(latencies, 0.5)), p99: round(percentile(latencies, 0.99)) },
        stepP50Ms: { commit: p50(steps.commit), open: p50(steps.open), openToMerged: p50(steps.land) },
        changesPerLanding: landings ? +(merged.length / landings).toFixed(2) : null,
        serverCpuMsPerLanded: landed.length ? round((serverCpu * 1000) / landed.length) : null,
        agentsCpuMsPerLanded: landed.length ? round(agentsCpuMs / landed.length) : null,
        ...counters,
        gitPlumbingCycleMs: { p50: +percentile(plumbing, 0.5).toFixed(1) },
        cycleRatioToPlumbing: latencies.length
          ? +(percentile(latencies, 0.5) / percentile(plumbing, 0.5)).toFixed(2)
          : null,
      },
      null,
      2,
    ),
  );
  if (counters.status5xx > 0 || counters.networkErrors > 0) process.exitCode = 1;
} finally {
  await Promise.all(servers.map(stopProcess));
  await proxy?.close();
  postgres?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
