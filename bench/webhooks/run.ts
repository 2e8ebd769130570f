// Webhook delivery: event-to-delivery latency for one webhook, and deliveries per second across
// 50 webhooks. The whole path runs as in `npm start` with the embedded defaults: an issue is opened
// through the REST route handler, called in-process with a Request as Next.js would (its
// issue.opened event is written with it and published by the request pipeline after commit), the
// embedded Inngest executor runs the fan-out and one delivery job per webhook, and each job POSTs a
// signed payload to a real HTTP receiver on 127.0.0.1. Latency runs from just before the issue is
// opened to the receiver having read the request body. Embedded PGlite in a throwaway DATA_DIR, or
// the PostgreSQL of DATABASE_URL (an empty database).
// Usage: npx tsx bench/webhooks/run.ts [--events 200] [--gap 100] [--hooks 50] [--burst 20]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "200" },
    gap: { type: "string", default: "100" },
    hooks: { type: "string", default: "50" },
    burst: { type: "string", default: "20" },
  },
});
const EVENTS = Number(values.events);
// Pause between the sequential events, so each one meets an idle executor (the previous delivery's
// bookkeeping done) rather than queueing behind it.
const GAP_MS = Number(values.gap);
const HOOKS = Number(values.hooks);
const BURST = Number(values.burst);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-webhooks-"));
const ADMIN_KEY = "bench-admin-key";
Object.assign(process.env, {
  DATA_DIR: dataDir,
  BASE_URL: "http://bench.test",
  ADMIN_API_KEY: ADMIN_KEY,
  ALLOW_PRIVATE_TARGETS: "1",
  RATE_LIMIT_PER_MINUTE: "100000000",
});

const { closeDatabase, database } = await import("@/server/db/client");
const { startEmbeddedExecutor } = await import("@/server/jobs/embedded");
const { functions } = await import("@/inngest/functions");
const { startReceiver } = await import("@/server/webhooks/test-receiver");
const { ms, percentile, rest } = await import("@/bench/support/in-process");

const receiver = await startReceiver(() => ({ status: 200, body: "ok" }));
const executor = await startEmbeddedExecutor(functions);
try {
  const { token } = await rest("POST", "/api/admin/users", undefined, { username: "bench" }, 201, {
    "x-admin-api-key": ADMIN_KEY,
  });
  const project = await rest("POST", "/api/projects", token, { name: "bench" }, 201);
  const base = `/api/projects/${project.path}`;
  const createWebhook = async (url: string, events: string) =>
    (await rest("POST", `${base}/webhooks`, token, { url, events }, 201)).webhook;
  const openIssue = (title: string) => rest("POST", `${base}/issues`, token, { title }, 201);
  const load = os.loadavg()[0].toFixed(1);
  console.log(
    `node ${process.version}; ${os.cpus().length} CPUs (load ${load}); ${(await database()).kind}; embedded executor; receiver on 127.0.0.1`,
  );

  // 1. One webhook, one event at a time.
  const single = await createWebhook(`${receiver.url}?hook=single`, "*");
  const latencies: number[] = [];
  const opening: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const expected = receiver.received.length + 1;
    const t0 = performance.now();
    await openIssue(`latency ${i}`);
    opening.push(performance.now() - t0);
    const [arrived] = (await receiver.waitFor(expected, 30_000)).slice(expected - 1);
    latencies.push(arrived.at - t0);
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
  latencies.sort((a, b) => a - b);
  opening.sort((a, b) => a - b);
  console.log(
    `event-to-delivery, 1 webhook, ${EVENTS} events ${GAP_MS} ms apart:  p50 ${ms(percentile(latencies, 0.5))}   p99 ${ms(percentile(latencies, 0.99))}   max ${ms(latencies[latencies.length - 1])}` +
      `   (opening the issue itself: p50 ${ms(percentile(opening, 0.5))})`,
  );
  await rest("POST", `${base}/webhooks/${single.id}/toggle`, token, {}, 200);

  // 2. HOOKS webhooks, BURST events opened back to back: HOOKS x BURST deliveries.
  for (let i = 0; i < HOOKS; i++) await createWebhook(`${receiver.url}?hook=${i}`, "issue.opened");
  const total = HOOKS * BURST;
  const before = receiver.received.length;
  const started = performance.now();
  for (let i = 0; i < BURST; i++) await openIssue(`fan-out ${i}`);
  await receiver.waitFor(before + total, 300_000);
  const seconds = (performance.now() - started) / 1000;
  const fanOut = receiver.received
    .slice(before)
    .map((entry) => entry.at - started)
    .sort((a, b) => a - b);
  console.log(
    `${HOOKS} webhooks x ${BURST} events = ${total} deliveries in ${seconds.toFixed(2)} s:  ${(total / seconds).toFixed(0)} deliveries/s` +
      `   (first at ${ms(fanOut[0])}, p50 at ${ms(percentile(fanOut, 0.5))})`,
  );
} finally {
  await executor.stop();
  await receiver.close();
  await closeDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
