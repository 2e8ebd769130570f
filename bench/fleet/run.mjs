// A fleet of agents of one owner on one project, against the production server (`node server.mjs`
// of a build of HEAD, embedded PGlite unless DATABASE_URL is set). Each agent loops: commit 3 new
// files to its own workspace, open a change, wait until it has landed. Who lands it:
//   --mode owner      the owner merges each change as it opens (one merger, FIFO); on STALE_BASE
//                     it re-evaluates the change and merges again (what a person or bot does today);
//   --mode autoQueue  the policy has `merge.autoQueue: true` and the queue lands it (needs the queue).
// Reports changes landed per second, commit -> merged p50/p99, 5xx and STALE_BASE counts, and the
// git plumbing cycle (hash-object, update-index, write-tree, commit-tree, update-ref, diff-tree,
// merge-tree --write-tree, commit-tree, update-ref) timed in the same invocation as the baseline.
// Usage: node bench/fleet/run.mjs [--agents 10] [--seconds 30] [--mode owner|autoQueue]
//                                 [--app <built copy> | --skip-build] [--port 3931]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildAppCopy, request, root, startNext, stopProcess, waitForServer } from "../support/next-app.mjs";
import { plumbingCycles } from "../support/plumbing.mjs";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "10" },
    seconds: { type: "string", default: "30" },
    mode: { type: "string", default: "owner" },
    app: { type: "string" },
    "skip-build": { type: "boolean", default: false },
    port: { type: "string", default: "3931" },
    "plumbing-cycles": { type: "string", default: "30" },
  },
});
const AGENTS = Number(values.agents);
const SECONDS = Number(values.seconds);
const MODE = values.mode;
const PORT = Number(values.port);
if (!["owner", "autoQueue"].includes(MODE)) throw new Error(`--mode is owner or autoQueue, not ${MODE}`);

const work = path.join(root, "bench/.work/fleet");
const app = values.app ? path.resolve(values.app) : values["skip-build"] ? path.join(work, "app") : buildAppCopy(work);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-fleet-"));
const ADMIN_KEY = "bench-fleet";

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null);
const round = (value) => (value === null ? null : Math.round(value));

const counters = { status5xx: 0, staleBase: 0, reevaluations: 0, mergeConflicts: 0, otherFailures: 0 };
async function api(method, url, token, body) {
  const headers = { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : { "x-admin-api-key": ADMIN_KEY }) };
  const res = await request(PORT, url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 500) counters.status5xx++;
  let json = null;
  try {
    json = JSON.parse(res.body);
  } catch {}
  if (json?.code === "STALE_BASE") counters.staleBase++;
  return { status: res.status, body: json };
}
async function ok(method, url, token, body) {
  const res = await api(method, url, token, body);
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const fileText = (agent, cycle, i) => `// agent ${agent} cycle ${cycle} file ${i}\nexport const v = ${cycle * 3 + i};\n${"// filler line\n".repeat(30)}`;

const server = startNext(app, PORT, { DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "100000000", BASE_URL: `http://127.0.0.1:${PORT}`, LOG_LEVEL: "warn" });
try {
  await waitForServer(PORT, server, "/api/health");
  const owner = await ok("POST", "/api/admin/users", null, { username: "fleet-owner" });
  const policy = MODE === "autoQueue" ? "merge:\n  autoQueue: true\n" : "merge:\n  requireFreshBase: true\n";
  const project = await ok("POST", "/api/projects", owner.token, { name: "fleet", visibility: "private", files: { "README.md": "fleet\n", ".svc/policy.yml": policy } });
  const projectPath = `@${project.namespace ?? project.project?.namespace}/${project.slug ?? project.project?.slug}`;
  const projectId = project.id ?? project.project?.id;
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    const { token } = await ok("POST", "/api/agents", owner.token, { name: `agent-${i}`, model: "bench" });
    await ok("POST", `/api/workspaces/${projectPath}/workspaces`, token, { name: `agent-${i}` });
    agents.push({ index: i, token, workspace: `agent-${i}` });
  }

  const landed = []; // commit -> merged latencies (ms)
  const steps = { commit: [], open: [], land: [] };
  let opened = 0;
  let unlanded = 0;
  const deadline = performance.now() + SECONDS * 1000;

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
  const landedByQueue = async (change, token) => {
    const until = performance.now() + 30_000;
    while (performance.now() < until) {
      const res = await api("GET", `/api/changes/${change.id}`, token);
      const status = res.body?.change?.status;
      if (status === "merged") return true;
      if (status === "rejected" || status === "needs_changes") return false;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  };

  const started = performance.now();
  await Promise.all(
    agents.map(async (agent) => {
      for (let cycle = 0; performance.now() < deadline; cycle++) {
        const t0 = performance.now();
        const files = Object.fromEntries([0, 1, 2].map((i) => [`agent${agent.index}/c${cycle}/f${i}.ts`, fileText(agent.index, cycle, i)]));
        const committed = await api("POST", "/api/workspaces/" + agent.workspace + "/commit", agent.token, { projectId, message: `cycle ${cycle}`, files });
        if (committed.status !== 201) {
          counters.otherFailures++;
          continue;
        }
        const t1 = performance.now();
        const res = await api("POST", `/api/projects/${projectPath}/changes`, agent.token, { workspace: agent.workspace });
        const t2 = performance.now();
        steps.commit.push(t1 - t0);
        steps.open.push(t2 - t1);
        if (res.status !== 201 || res.body.change.status !== "accepted") {
          counters.otherFailures++;
          continue;
        }
        opened++;
        const merged = MODE === "owner" ? await landedByOwner(res.body.change) : await landedByQueue(res.body.change, agent.token);
        if (merged) {
          landed.push(performance.now() - t0);
          steps.land.push(performance.now() - t2);
        } else unlanded++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  merging = false;
  wakeMerger?.();
  await merger;

  const plumbing = plumbingCycles(Number(values["plumbing-cycles"]), { files: (cycle) => Object.fromEntries([0, 1, 2].map((i) => [`agent/c${cycle}/f${i}.ts`, fileText(0, cycle, i)])) });
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const latencies = sorted(landed);
  const p50 = (xs) => round(percentile(sorted(xs), 0.5));
  console.log(
    JSON.stringify(
      {
        mode: MODE,
        agents: AGENTS,
        seconds: +elapsed.toFixed(1),
        database: process.env.DATABASE_URL ? "postgres" : "pglite",
        load: os.loadavg().map((l) => +l.toFixed(2)),
        opened,
        landed: landed.length,
        unlanded,
        landedPerSecond: +(landed.length / elapsed).toFixed(2),
        commitToMergedMs: { p50: round(percentile(latencies, 0.5)), p99: round(percentile(latencies, 0.99)) },
        stepP50Ms: { commit: p50(steps.commit), open: p50(steps.open), openToMerged: p50(steps.land) },
        ...counters,
        gitPlumbingCycleMs: { p50: +percentile(plumbing, 0.5).toFixed(1) },
        cycleRatioToPlumbing: latencies.length ? +(percentile(latencies, 0.5) / percentile(plumbing, 0.5)).toFixed(2) : null,
      },
      null,
      2,
    ),
  );
  if (counters.status5xx > 0) process.exitCode = 1;
} finally {
  await stopProcess(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
