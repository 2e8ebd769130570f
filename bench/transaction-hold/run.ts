// How long a transaction holds the embedded database's one connection while the server's thread is
// busy with other work (issue 42: a fleet's ref moves held it 34 ms, 20 of them waiting for that
// thread between statements). N movers each run rounds of one transaction shaped like a ref move's
// (a first statement, then --statements more, then COMMIT) through the worker thread's Prisma driver
// adapter, first with the server's thread idle (the baseline), then with it kept --busy percent busy
// by tasks of --chunk ms. Prints per phase: the connection held (first statement's answer to the
// commit's answer, p50/p90/mean), the whole transaction (its wait for the connection included),
// transactions per second and the thread's event-loop utilization; then busy against idle.
// Not under bench/db nor bench/data*: the server's traces take in such directories (the data
// directory's paths, which Turbopack cannot scope), and scripts/check-build.mjs refuses a benchmark there.
// Usage: npx tsx bench/transaction-hold/run.ts [--movers 50] [--rounds 10] [--statements 6] [--busy 50] [--chunk 5]
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { openPgliteThread } from "@/server/db/pglite-thread";

const { values } = parseArgs({
  options: {
    movers: { type: "string", default: "50" },
    rounds: { type: "string", default: "10" },
    statements: { type: "string", default: "6" },
    busy: { type: "string", default: "50" },
    chunk: { type: "string", default: "5" },
  },
});
const [movers, rounds, statements, busy, chunk] = ["movers", "rounds", "statements", "busy", "chunk"].map((key) =>
  Number(values[key as keyof typeof values]),
);

const thread = await openPgliteThread({ settings: [], channel: "bench", onNotification: () => undefined });
await thread.raw.exec(`CREATE TABLE "Ref" ("name" text PRIMARY KEY, "tip" int NOT NULL)`);
await thread.raw.exec(`CREATE TABLE "Event" ("id" serial PRIMARY KEY, "ref" text NOT NULL, "tip" int NOT NULL)`);
await thread.raw.exec(`INSERT INTO "Ref" SELECT 'refs/heads/m' || g, 0 FROM generate_series(1, ${movers}) AS g`);
const adapter = await thread.adapter.connect();
const sql = (text: string, args: unknown[] = []) => ({
  sql: text,
  args,
  argTypes: args.map(() => ({ scalarType: "string" as const, arity: "scalar" as const })),
});

/** Other requests' work on the server's thread: `chunk` ms of CPU, `percent` of the time, until stopped. */
function keepBusy(percent: number): () => void {
  let working = percent > 0;
  const burn = () => {
    if (!working) return;
    const end = performance.now() + chunk;
    while (performance.now() < end);
    setTimeout(burn, (chunk * (100 - percent)) / percent);
  };
  if (working) burn();
  return () => (working = false);
}

async function mover(index: number, held: number[], whole: number[]): Promise<void> {
  const ref = `refs/heads/m${index + 1}`;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    const tx = await adapter.startTransaction();
    await tx.queryRaw(sql(`SELECT "tip" FROM "Ref" WHERE "name" = $1 FOR UPDATE`, [ref]));
    const holding = performance.now();
    for (let n = 0; n < statements; n++) {
      if (n % 2 === 0)
        await tx.executeRaw(sql(`INSERT INTO "Event" ("ref", "tip") VALUES ($1, $2::int)`, [ref, `${n}`]));
      else await tx.executeRaw(sql(`UPDATE "Ref" SET "tip" = "tip" + 1 WHERE "name" = $1`, [ref]));
    }
    await tx.commit();
    const ended = performance.now();
    held.push(ended - holding);
    whole.push(ended - started);
  }
}

const percentile = (list: number[], p: number) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) * p)];
const tenths = (ms: number) => Math.round(ms * 10) / 10;

async function phase(percent: number) {
  const held: number[] = [];
  const whole: number[] = [];
  const stop = keepBusy(percent);
  const utilization = performance.eventLoopUtilization();
  const started = performance.now();
  await Promise.all(Array.from({ length: movers }, (_, index) => mover(index, held, whole)));
  const seconds = (performance.now() - started) / 1000;
  stop();
  const mean = held.reduce((a, b) => a + b) / held.length;
  return {
    busyPercent: percent,
    heldMs: { p50: tenths(percentile(held, 0.5)), p90: tenths(percentile(held, 0.9)), mean: tenths(mean) },
    transactionMs: { p50: tenths(percentile(whole, 0.5)), p90: tenths(percentile(whole, 0.9)) },
    transactionsPerSecond: Math.round((movers * rounds) / seconds),
    eventLoopUtilization: Math.round(performance.eventLoopUtilization(utilization).utilization * 100) / 100,
  };
}

const idle = await phase(0);
const loaded = await phase(busy);
console.log(JSON.stringify({ movers, rounds, statements, idle, busy: loaded }, null, 2));
console.log(
  `held p50 busy / idle: ${(loaded.heldMs.p50 / idle.heldMs.p50).toFixed(2)}x; transactions/s busy / idle: ${(loaded.transactionsPerSecond / idle.transactionsPerSecond).toFixed(2)}x`,
);
await thread.close();
