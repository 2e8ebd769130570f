// The embedded database on its own thread (started by pglite-thread.ts, which states the protocol).
// Plain JavaScript: it is started by its path, so it must run as it is under Node, vitest and tsx
// (Turbopack bundles it into a chunk of its own for the production build).
import v8 from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";

const { dataDir, settings, channel, loadDataDir, vacuumEveryMs, answers, answered } = workerData;

/**
 * Open Prisma transactions by the id the server's thread gave them, each as the promise of its
 * start: a transaction's first statement carries its BEGIN (`begin`), and the statements behind it
 * wait for that start. Each holds PGlite's one connection from its start until its commit or rollback.
 */
const transactions = new Map();
/** Set by `close`: no maintenance starts after it. */
let closing = false;

/** What crosses the thread: a driver error keeps the fields Prisma maps to its codes; any other error its message and fields. */
function serializeError(error) {
  if (error?.name === "DriverAdapterError") return { driver: error.cause };
  const fields = {};
  for (const [key, value] of Object.entries(error ?? {}))
    if (value === null || typeof value !== "object") fields[key] = value;
  return { message: String(error?.message ?? error), fields };
}

function started(id) {
  const transaction = transactions.get(id);
  if (!transaction) throw new Error(`no open transaction ${id}`);
  return transaction;
}

/** Where a statement runs: outside any transaction, or in `tx`, begun first when the statement carries the BEGIN. */
function queryable({ tx, begin }) {
  if (tx === undefined) return adapter;
  if (!begin) return started(tx);
  const starting = adapter.startTransaction(begin.isolationLevel);
  transactions.set(tx, starting);
  return starting;
}

const operations = {
  query: async (args) => (await queryable(args)).queryRaw(args.query),
  execute: async (args) => (await queryable(args)).executeRaw(args.query),
  script: ({ script }) => adapter.executeScript(script),
  commit: ({ tx }) => finish(tx, "commit"),
  rollback: ({ tx }) => finish(tx, "rollback"),
  rawQuery: async ({ sql, params }) => (await pglite.query(sql, params)).rows,
  rawExec: async ({ sql }) => void (await pglite.exec(sql)),
  // PostgreSQL's memory is the WebAssembly module's linear memory (it only grows); this thread's own JS heap apart.
  memory: () => ({
    wasmBytes: pglite.mod?.HEAPU8?.buffer.byteLength ?? null,
    heapUsedBytes: v8.getHeapStatistics().used_heap_size,
  }),
  close: () => {
    closing = true;
    return pglite.close();
  },
};

async function finish(id, how) {
  const starting = started(id);
  transactions.delete(id);
  const transaction = await starting.catch((error) => {
    if (how === "commit") throw error;
  });
  await transaction?.[how]();
}

/**
 * What PostgreSQL's autovacuum would do, which PGlite never runs (it is PostgreSQL in single-user
 * mode: no background workers). Without it every updated or deleted row keeps its dead version,
 * and every index its dead entries, for the life of the server, and the planner never learns a
 * table's size: in a fleet's minute the queue of job events scanned 1,400 index entries to find 15,
 * the changes table was read whole twice per landed change, and a change's read cost twice what it
 * did at the start. Every `vacuumEveryMs`, the tables PostgreSQL's own statistics say have enough
 * dead rows are vacuumed, and those changed enough since their last ANALYZE analyzed: autovacuum's
 * rule, with a lower scale factor for dead rows (tables used as queues). Like every statement
 * outside a transaction, each waits until no transaction is open.
 */
const DUE_FOR_MAINTENANCE = `
SELECT format('%I.%I', schemaname, relname) AS name,
       n_dead_tup > 100 + 0.05 * n_live_tup AS vacuum,
       n_mod_since_analyze > 500 + 0.2 * n_live_tup AS analyze
  FROM pg_stat_user_tables`;

async function maintainTables() {
  const due = (await pglite.query(DUE_FOR_MAINTENANCE)).rows;
  const names = (what) =>
    due
      .filter((table) => table[what])
      .map((table) => table.name)
      .join(", ");
  const [vacuum, analyze] = [names("vacuum"), names("analyze")];
  if (vacuum) await pglite.exec(`VACUUM ${vacuum}`);
  if (analyze) await pglite.exec(`ANALYZE ${analyze}`);
}

function maintainTablesEvery(ms) {
  const tick = async () => {
    if (closing) return;
    // The server's thread writes the line (its structured log): this thread has no logger of its own.
    await maintainTables().catch((error) =>
      parentPort.postMessage({
        warning: { msg: "db: vacuum of the embedded database failed", err: String(error?.message ?? error) },
      }),
    );
    if (!closing) setTimeout(tick, ms).unref();
  };
  setTimeout(tick, ms).unref();
}

let pglite;
let adapter;
try {
  pglite = new PGlite(dataDir ?? "memory://", {
    postgresqlconf: settings,
    ...(loadDataDir ? { loadDataDir: new Blob([loadDataDir]) } : {}),
  });
  await pglite.waitReady;
  await pglite.listen(channel, (payload) => parentPort.postMessage({ notification: payload }));
  adapter = await new PrismaPGlite(pglite).connect();
  if (vacuumEveryMs) maintainTablesEvery(vacuumEveryMs);
} catch (error) {
  parentPort.postMessage({ failed: serializeError(error) });
  process.exit(1);
}

/** An inline request's answer goes on its own port, then the count its caller blocks on rises (pglite-thread.ts). */
function answer(inline, message) {
  if (!inline) return parentPort.postMessage(message);
  answers.postMessage(message);
  Atomics.add(answered, 0, 1);
  Atomics.notify(answered, 0);
}

parentPort.on("message", async ({ id, op, inline, ...args }) => {
  try {
    answer(inline, { id, value: await operations[op](args) });
  } catch (error) {
    answer(inline, { id, error: serializeError(error) });
  }
});
parentPort.postMessage({ ready: true });
