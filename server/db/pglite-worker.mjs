// The embedded database on its own thread (started by pglite-thread.ts, which states the protocol).
// Plain JavaScript: it is started by its path, so it must run as it is under Node, vitest and tsx
// (Turbopack bundles it into a chunk of its own for the production build).
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";

const { dataDir, settings, channel, loadDataDir } = workerData;

/** Open Prisma transactions by id: each holds PGlite's one connection until its commit or rollback. */
const transactions = new Map();
let nextTransaction = 1;

/** What crosses the thread: a driver error keeps the fields Prisma maps to its codes; any other error its message and fields. */
function serializeError(error) {
  if (error?.name === "DriverAdapterError") return { driver: error.cause };
  const fields = {};
  for (const [key, value] of Object.entries(error ?? {})) if (value === null || typeof value !== "object") fields[key] = value;
  return { message: String(error?.message ?? error), fields };
}

function queryable(id) {
  if (id === undefined) return adapter;
  const transaction = transactions.get(id);
  if (!transaction) throw new Error(`no open transaction ${id}`);
  return transaction;
}

const operations = {
  query: ({ tx, query }) => queryable(tx).queryRaw(query),
  execute: ({ tx, query }) => queryable(tx).executeRaw(query),
  script: ({ script }) => adapter.executeScript(script),
  begin: async ({ isolationLevel }) => {
    const transaction = await adapter.startTransaction(isolationLevel);
    const id = nextTransaction++;
    transactions.set(id, transaction);
    return { id, options: transaction.options };
  },
  commit: ({ tx }) => finish(tx, "commit"),
  rollback: ({ tx }) => finish(tx, "rollback"),
  rawQuery: async ({ sql, params }) => (await pglite.query(sql, params)).rows,
  rawExec: async ({ sql }) => void (await pglite.exec(sql)),
  close: () => pglite.close(),
};

async function finish(id, how) {
  const transaction = queryable(id);
  transactions.delete(id);
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
  try {
    parentPort.postMessage({ id, value: await operations[op](args) });
  } catch (error) {
    parentPort.postMessage({ id, error: serializeError(error) });
  }
});
parentPort.postMessage({ ready: true });
