// Embedded executor: latency from inngest.send() to the start of a one-step function's step
// (p50/p99, one event at a time on an idle executor), and events per second through the executor
// (a burst of events, each a run of that one-step function, until all are completed), with the CPU
// and the SQL statements per run (PGlite wire messages that start one; BENCH_LOG_SQL=1 prints them).
// The executor logs one line per step call at info, as in production: stdout is the log, the result
// is printed on stderr. `--profile FILE` writes a CPU profile of the burst alone (open it in Chrome's
// DevTools, or summarize it with `node bench/support/profile-summary.mjs FILE`). Before the latency
// run, `--idle SECONDS` of an idle executor (a cron function registered, nothing due): its SQL
// statements and CPU per second; `--profile-idle FILE` profiles that phase.
// PGlite in a throwaway DATA_DIR by default; DATABASE_URL=postgresql://... for PostgreSQL (use a
// throwaway database: the bench migrates it and leaves its rows).
// Usage: npx tsx bench/jobs/run.ts [--idle 10] [--latency 300] [--burst 2000] [--concurrency N (the executor's default)] [--profile FILE] [--profile-idle FILE]
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    idle: { type: "string", default: "10" },
    latency: { type: "string", default: "300" },
    burst: { type: "string", default: "2000" },
    concurrency: { type: "string" },
    profile: { type: "string" },
    "profile-idle": { type: "string" },
  },
});
const LATENCY_SAMPLES = Number(values.latency);
const BURST = Number(values.burst);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-jobs-"));
Object.assign(process.env, { DATA_DIR: dataDir, BASE_URL: "http://bench.test" });

const { counts, installCounters } = await import("../support/counters");
await installCounters();
const { closeDatabase, database } = await import("@/server/db/client");
const { inngest } = await import("@/server/jobs/client");
const { EmbeddedExecutor } = await import("@/server/jobs/executor");

const stepStarted = new Map<string, () => void>();
const latencies: number[] = [];
let completedSteps = 0;
const oneStep = inngest.createFunction(
  { id: "bench-one-step", triggers: [{ event: "bench/ping" }] },
  async ({ event, step }) =>
    step.run("work", () => {
      const { key, sentAt } = event.data as { key: string; sentAt: number };
      if (sentAt) latencies.push(performance.now() - sentAt);
      completedSteps++;
      stepStarted.get(key)?.();
      return key;
    }),
);

// Registered so the idle executor has a schedule to watch; its tick (once a year) never comes in a run.
const yearly = inngest.createFunction({ id: "bench-yearly", triggers: [{ cron: "0 0 1 1 *" }] }, async () => "tick");

/** Profiles what runs until the answered stop is called with a file to write. */
async function startProfile(): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return async (file) => {
    fs.writeFileSync(file, JSON.stringify((await session.post("Profiler.stop")).profile));
    session.disconnect();
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// The executor's timers are unref'd (a server's socket keeps it alive): this keeps the bench alive.
const keepAlive = setInterval(() => undefined, 1000);
const db = await database();
const executor = new EmbeddedExecutor({
  functions: [oneStep, yearly],
  ...(values.concurrency ? { concurrency: Number(values.concurrency) } : {}),
});
await executor.start();

// Warm-up (JIT, prepared plans), then one event at a time.
for (let i = 0; i < 20; i++) {
  const key = `warm-${i}`;
  await new Promise<void>((resolve) => {
    stepStarted.set(key, resolve);
    void inngest.send({ name: "bench/ping", data: { key, sentAt: 0 } });
  });
}
// Idle: nothing sent, nothing due; whatever the executor does now is its idle cost.
const IDLE_SECONDS = Number(values.idle);
const idleCpuBefore = process.cpuUsage();
const idleStatementsBefore = counts.statements;
const stopIdleProfile = values["profile-idle"] ? await startProfile() : null;
await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
await stopIdleProfile?.(values["profile-idle"]!);
const idleCpu = process.cpuUsage(idleCpuBefore);
const idleStatements = counts.statements - idleStatementsBefore;

const latencyCpuBefore = process.cpuUsage();
const latencyStatementsBefore = counts.statements;
for (let i = 0; i < LATENCY_SAMPLES; i++) {
  const key = `latency-${i}`;
  await new Promise<void>((resolve) => {
    stepStarted.set(key, resolve);
    void inngest.send({ name: "bench/ping", data: { key, sentAt: performance.now() } });
  });
}
const latencyCpu = process.cpuUsage(latencyCpuBefore);
const latencyStatements = counts.statements - latencyStatementsBefore;
const sorted = [...latencies].sort((a, b) => a - b);

// Burst: all events sent in batches of 100, timed until every run has completed.
const stopProfile = values.profile ? await startProfile() : null;
const before = completedSteps;
const statementsBefore = counts.statements;
const cpuBefore = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < BURST; i += 100) {
  await inngest.send(
    Array.from({ length: Math.min(100, BURST - i) }, (_, j) => ({
      name: "bench/ping",
      data: { key: `burst-${i + j}`, sentAt: 0 },
    })),
  );
}
const sendMs = performance.now() - started;
const expected = 20 + LATENCY_SAMPLES + BURST;
// Every step has run before the runs' completions are counted: polling a COUNT over the growing
// table meanwhile would charge the benchmark's own queries to the executor's CPU.
while (completedSteps - before < BURST) await new Promise((resolve) => setTimeout(resolve, 20));
while (
  (await db.prisma.jobRun.count({ where: { functionId: "svc-forge-bench-one-step", status: "completed" } })) < expected
) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const burstMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
// The benchmark's own sends (one statement per 100 events) and its final COUNT polls included.
const burstStatements = counts.statements - statementsBefore;
await stopProfile?.(values.profile!);
const latencyCpuMs = latencyCpu.user / 1000 + latencyCpu.system / 1000;

await executor.stop();
clearInterval(keepAlive);
await closeDatabase();
fs.rmSync(dataDir, { recursive: true, force: true });

const result = {
  database: db.kind,
  load: os.loadavg().map((load) => +load.toFixed(2)),
  idle: IDLE_SECONDS && {
    seconds: IDLE_SECONDS,
    statementsPerSecond: +(idleStatements / IDLE_SECONDS).toFixed(2),
    cpuMsPerSecond: +((idleCpu.user + idleCpu.system) / 1000 / IDLE_SECONDS).toFixed(2),
  },
  latencySamples: sorted.length,
  sendToStepStartMs: {
    p50: +percentile(sorted, 50).toFixed(1),
    p99: +percentile(sorted, 99).toFixed(1),
    max: +sorted[sorted.length - 1].toFixed(1),
  },
  // CPU this process spent per event: what the numbers tend to on an idle machine (2 cores are shared here).
  cpuMsPerEvent: {
    latencyRun: +(latencyCpuMs / LATENCY_SAMPLES).toFixed(1),
    burst: +((cpu.user + cpu.system) / 1000 / BURST).toFixed(2),
  },
  statementsPerRun: {
    latencyRun: +(latencyStatements / LATENCY_SAMPLES).toFixed(2),
    burst: +(burstStatements / BURST).toFixed(2),
  },
  burst: {
    events: BURST,
    stepsRun: completedSteps - before,
    sendMs: Math.round(sendMs),
    totalMs: Math.round(burstMs),
    eventsPerSecond: Math.round((BURST / burstMs) * 1000),
  },
};
console.error(JSON.stringify(result, null, 2));
process.exit(0);
