// The embedded database on its own thread (started by pglite-thread.ts, which states the protocol).
// Plain JavaScript: it is started by its path, so it must run as it is under Node, vitest and tsx
// (Turbopack bundles it into a chunk of its own for the production build).
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";

const { dataDir, settings, channel, loadDataDir } = workerData;

/**
 * Open Prisma transactions by id: each holds PGlite's one connection from its first statement until
 * its commit or rollback. A transaction is begun by its first statement, not by Prisma's begin: the
 * begin's answer waits its turn in the server thread's event loop, a busy one at that, and the
 * connection held meanwhile served no one (PostgreSQL too takes a transaction's snapshot at its first
 * statement, not at BEGIN). Each entry is the promise of the adapter's transaction.
 */
const transactions = new Map();
let nextTransaction = 1;

/** What crosses the thread: a driver error keeps the fields Prisma maps to its codes; any other error its message and fields. */
function serializeError(error) {
  if (error?.name === "DriverAdapterError") return { driver: error.cause };
  const fields = {};
  for (const [key, value] of Object.entries(error ?? {})) if (value === null || typeof value !== "object") fields[key] = value;
  return { message: String(error?.message ?? error), fields };
}

/** What `tx` sends its statements to: the adapter outside a transaction, else the transaction, begun by the first. */
function queryable(id) {
  if (id === undefined) return adapter;
  const entry = transactions.get(id);
  if (!entry) throw new Error(`no open transaction ${id}`);
  entry.started ??= adapter.startTransaction(entry.isolationLevel);
  return entry.started;
}

const operations = {
  query: async ({ tx, query }) => (await queryable(tx)).queryRaw(query),
  execute: async ({ tx, query }) => (await queryable(tx)).executeRaw(query),
  script: ({ script }) => adapter.executeScript(script),
  begin: ({ isolationLevel }) => {
    const id = nextTransaction++;
    transactions.set(id, { isolationLevel, started: undefined });
    // The adapter's own transactions' options: PGlite runs BEGIN itself (Prisma sends none).
    return { id, options: { usePhantomQuery: true } };
  },
  commit: ({ tx }) => finish(tx, "commit"),
  rollback: ({ tx }) => finish(tx, "rollback"),
  rawQuery: async ({ sql, params }) => (await pglite.query(sql, params)).rows,
  rawExec: async ({ sql }) => void (await pglite.exec(sql)),
  close: () => pglite.close(),
};

/** Commits or rolls back; a transaction that ran no statement never began and has nothing to end. */
async function finish(id, how) {
  const entry = transactions.get(id);
  if (!entry) throw new Error(`no open transaction ${id}`);
  transactions.delete(id);
  if (entry.started) await (await entry.started)[how]();
}

let pglite;
let adapter;
try {
  pglite = new PGlite(dataDir ?? "memory://", { postgresqlconf: settings, ...(loadDataDir ? { loadDataDir: new Blob([loadDataDir]) } : {}) });
  await pglite.waitReady;
  await pglite.listen(channel, (payload) => parentPort.postMessage({ notification: payload }));
  adapter = await new PrismaPGlite(pglite).connect();
} catch (error) {
  parentPort.postMessage({ failed: serializeError(error) });
  process.exit(1);
}

parentPort.on("message", async ({ id, op, ...args }) => {
  try {
    parentPort.postMessage({ id, value: await operations[op](args) });
  } catch (error) {
    parentPort.postMessage({ id, error: serializeError(error) });
  }
});
parentPort.postMessage({ ready: true });
