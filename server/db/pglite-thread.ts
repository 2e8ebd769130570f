import path from "node:path";
import { Worker } from "node:worker_threads";
import {
  DriverAdapterError,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlDriverAdapterFactory,
  type SqlQuery,
  type SqlQueryable,
  type SqlResultSet,
  type Transaction,
  type TransactionOptions,
} from "@prisma/driver-adapter-utils";
import type { RawSql } from "./migrate";

/**
 * The embedded database on a worker thread. PGlite runs every statement synchronously on the thread
 * that holds it (1-3 ms of WebAssembly each, about a third of a fleet server's CPU), so in the
 * server's thread it both spent that core and held every request behind whole chains of statements.
 * On its own thread a statement costs the server's thread one message each way (~0.07 ms measured).
 *
 * The worker (pglite-worker.mjs) holds PGlite and the same Prisma adapter the server used in-thread,
 * so transactions, locking and errors are PGlite's own; this side forwards Prisma's driver calls
 * and the raw statements, and brings errors back as the adapter raised them.
 *
 * Protocol: requests `{id, op, ...args}`; answers `{id, value}` or `{id, error}`; unprompted
 * `{notification}` (a NOTIFY on `channel`, sent before the answer of the statement that committed
 * it), `{ready}` or `{failed}` once at start.
 */
const ADAPTER_NAME = "pglite-prisma-adapter";

type SerializedError = { driver: DriverAdapterError["cause"] } | { message: string; fields: Record<string, unknown> };
type Answer = { id: number; value?: unknown; error?: SerializedError };
type Message = Answer | { notification: string } | { ready: true } | { failed: SerializedError };

function toError(error: SerializedError): Error {
  if ("driver" in error) return new DriverAdapterError(error.driver);
  return Object.assign(new Error(error.message), error.fields);
}

/** Calls into the worker; keeps the process alive only while one is pending (scripts that never close still exit). */
class WorkerCalls {
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private stopped: Error | undefined;

  constructor(private readonly worker: Worker) {}

  call<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, op, ...args });
    });
  }

  answer({ id, value, error }: Answer): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
    if (error) call.reject(toError(error));
    else call.resolve(value);
  }

  /** The thread is gone: every pending and later call fails rather than waiting forever. */
  stop(reason: Error): void {
    this.stopped ??= reason;
    for (const call of this.pending.values()) call.reject(this.stopped);
    this.pending.clear();
  }
}

class WorkerQueryable implements SqlQueryable {
  readonly provider = "postgres";
  readonly adapterName = ADAPTER_NAME;

  constructor(
    protected readonly calls: WorkerCalls,
    private readonly transaction?: number,
  ) {}

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.calls.call("query", { tx: this.transaction, query });
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.calls.call("execute", { tx: this.transaction, query });
  }
}

class WorkerTransaction extends WorkerQueryable implements Transaction {
  constructor(
    calls: WorkerCalls,
    private readonly id: number,
    readonly options: TransactionOptions,
  ) {
    super(calls, id);
  }

  commit(): Promise<void> {
    return this.calls.call("commit", { tx: this.id });
  }

  rollback(): Promise<void> {
    return this.calls.call("rollback", { tx: this.id });
  }
}

class WorkerAdapter extends WorkerQueryable implements SqlDriverAdapter {
  executeScript(script: string): Promise<void> {
    return this.calls.call("script", { script });
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    const { id, options } = await this.calls.call<{ id: number; options: TransactionOptions }>("begin", { isolationLevel });
    return new WorkerTransaction(this.calls, id, options);
  }

  getConnectionInfo() {
    return { supportsRelationJoins: true };
  }

  async dispose(): Promise<void> {}
}

export interface PgliteThread {
  adapter: SqlDriverAdapterFactory;
  raw: RawSql;
  close(): Promise<void>;
}

/** Starts PGlite on a worker thread (`dataDir` must already exist; without one, in memory, from `loadDataDir` if given). */
export async function openPgliteThread(options: {
  dataDir?: string;
  loadDataDir?: Blob;
  settings: string[];
  channel: string;
  onNotification(payload: string): void;
}): Promise<PgliteThread> {
  const file = path.join(process.cwd(), "server", "db", "pglite-worker.mjs");
  const loadDataDir = options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined;
  const worker = new Worker(/*turbopackIgnore: true*/ file, {
    workerData: { dataDir: options.dataDir, settings: options.settings, channel: options.channel, loadDataDir },
  });
  const calls = new WorkerCalls(worker);
  await new Promise<void>((resolve, reject) => {
    worker.on("message", (message: Message) => {
      if ("notification" in message) options.onNotification(message.notification);
      else if ("ready" in message) resolve();
      else if ("failed" in message) reject(toError(message.failed));
      else calls.answer(message);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the embedded database's thread exited (code ${code}) before it was ready`)));
  });
  worker.on("error", (error) => {
    console.error("[db] the embedded database's thread failed:", error);
    calls.stop(error);
  });
  worker.once("exit", (code) => calls.stop(new Error(`the embedded database's thread exited (code ${code})`)));
  worker.unref();
  const adapter = new WorkerAdapter(calls);
  return {
    adapter: { provider: "postgres", adapterName: ADAPTER_NAME, connect: async () => adapter },
    raw: {
      exec: (sql) => calls.call("rawExec", { sql }),
      query: (sql, params) => calls.call("rawQuery", { sql, params }),
    },
    async close() {
      await calls.call("close").catch(() => undefined);
      await worker.terminate();
    },
  };
}
