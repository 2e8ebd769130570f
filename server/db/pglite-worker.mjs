// The embedded database on its own thread (started by pglite-thread.ts, which states the protocol).
// Plain JavaScript: a worker needs a file on disk, and the server's route bundles are not one.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";

const { dataDir, settings, channel, loadDataDir } = workerData;

/**
 * Prisma transactions by the id the server's thread gave them: each holds PGlite's one connection
 * from its start until its commit or rollback. The start is not answered: the transaction's first
 * statement follows it in the same message order, so the connection is not held idle for a round
 * trip through the server's (busy) thread before any work; a failed start fails that statement.
 */
const transactions = new Map();

/** What crosses the thread: a driver error keeps the fields Prisma maps to its codes; any other error its message and fields. */
function serializeError(error) {
  if (error?.name === "DriverAdapterError") return { driver: error.cause };
  const fields = {};
  for (const [key, value] of Object.entries(error ?? {})) if (value === null || typeof value !== "object") fields[key] = value;
  return { message: String(error?.message ?? error), fields };
}

async function queryable(tx) {
  if (tx === undefined) return adapter;
  const transaction = transactions.get(tx);
  if (!transaction) throw new Error(`no open transaction ${tx}`);
  return transaction;
}

const operations = {
  query: async ({ tx, query }) => (await queryable(tx)).queryRaw(query),
  execute: async ({ tx, query }) => (await queryable(tx)).executeRaw(query),
  script: ({ script }) => adapter.executeScript(script),
  begin: ({ tx, isolationLevel }) => {
    const starting = adapter.startTransaction(isolationLevel);
    starting.catch(() => undefined); // reported to the statement that awaits it
    transactions.set(tx, starting);
  },
  commit: ({ tx }) => finish(tx, "commit"),
  rollback: ({ tx }) => finish(tx, "rollback"),
  rawQuery: async ({ sql, params }) => (await pglite.query(sql, params)).rows,
  rawExec: async ({ sql }) => void (await pglite.exec(sql)),
  close: () => pglite.close(),
};

async function finish(tx, how) {
  const starting = queryable(tx);
  transactions.delete(tx);
  let transaction;
  try {
    transaction = await starting;
  } catch (error) {
    if (how === "rollback") return; // nothing began, nothing to undo
    throw error;
  }
  await transaction[how]();
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
  if (id === undefined) return void operations[op](args);
  try {
    parentPort.postMessage({ id, value: await operations[op](args) });
  } catch (error) {
    parentPort.postMessage({ id, error: serializeError(error) });
  }
});
parentPort.postMessage({ ready: true });
