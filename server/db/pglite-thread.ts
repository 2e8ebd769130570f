import path from "node:path";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
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
 *
 * The statements of an open transaction go the same way on a second port, but this thread waits for
 * each answer (`Atomics.wait` on a shared word the worker sets): PGlite has one connection and a
 * transaction holds it from begin to commit, so an answer left in this thread's event loop behind
 * other requests' work held the connection idle (in a 50-agent fleet, two thirds of a transaction's
 * life). A statement costs this thread its own time, as in-thread, and nothing more. Begin (it may
 * wait for another transaction) and commit (its notifications come first, on the first port) stay
 * asynchronous.
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

/** The shared word's states: the worker sets ANSWERED once the answer is on the port, EXITED as it ends. */
const WAITING = 0;
const EXITED = 2;
/** A statement that has not answered by then is treated as lost (the thread is wedged). */
const TRANSACTION_STATEMENT_TIMEOUT_MS = 120_000;

/** Calls this thread waits for: the statements of an open transaction. */
class WaitedCalls {
  private readonly signal: Int32Array;
  private nextSeq = 1;

  constructor(
    private readonly port: MessagePort,
    signal: SharedArrayBuffer,
  ) {
    this.signal = new Int32Array(signal);
  }

  call<T>(op: string, args: Record<string, unknown>): T {
    if (Atomics.exchange(this.signal, 0, WAITING) === EXITED) {
      Atomics.store(this.signal, 0, EXITED);
      throw new Error("the embedded database's thread exited");
    }
    const seq = this.nextSeq++;
    this.port.postMessage({ seq, op, ...args });
    const waited = Atomics.wait(this.signal, 0, WAITING, TRANSACTION_STATEMENT_TIMEOUT_MS);
    // An answer left by a call that timed out earlier is skipped by its sequence number.
    for (let received = receiveMessageOnPort(this.port); received; received = receiveMessageOnPort(this.port)) {
      const answer = received.message as Answer & { seq: number };
      if (answer.seq !== seq) continue;
      if (answer.error) throw toError(answer.error);
      return answer.value as T;
    }
    throw new Error(waited === "timed-out" ? `the embedded database did not answer within ${TRANSACTION_STATEMENT_TIMEOUT_MS} ms` : "the embedded database's thread exited");
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
    private readonly waited: WaitedCalls,
    private readonly id: number,
    readonly options: TransactionOptions,
  ) {
    super(calls, id);
  }

  override async queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.waited.call("query", { tx: this.id, query });
  }

  override async executeRaw(query: SqlQuery): Promise<number> {
    return this.waited.call("execute", { tx: this.id, query });
  }

  commit(): Promise<void> {
    return this.calls.call("commit", { tx: this.id });
  }

  rollback(): Promise<void> {
    return this.calls.call("rollback", { tx: this.id });
  }
}

class WorkerAdapter extends WorkerQueryable implements SqlDriverAdapter {
  constructor(
    calls: WorkerCalls,
    private readonly waited: WaitedCalls,
  ) {
    super(calls);
  }

  executeScript(script: string): Promise<void> {
    return this.calls.call("script", { script });
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    const { id, options } = await this.calls.call<{ id: number; options: TransactionOptions }>("begin", { isolationLevel });
    return new WorkerTransaction(this.calls, this.waited, id, options);
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
  const { port1: waitedPort, port2: workerWaitedPort } = new MessageChannel();
  const signal = new SharedArrayBuffer(4);
  const worker = new Worker(/*turbopackIgnore: true*/ file, {
    workerData: { dataDir: options.dataDir, settings: options.settings, channel: options.channel, loadDataDir, waitedPort: workerWaitedPort, signal },
    transferList: [workerWaitedPort],
  });
  waitedPort.unref();
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
  const adapter = new WorkerAdapter(calls, new WaitedCalls(waitedPort, signal));
  return {
    adapter: { provider: "postgres", adapterName: ADAPTER_NAME, connect: async () => adapter },
    raw: {
      exec: (sql) => calls.call("rawExec", { sql }),
      query: (sql, params) => calls.call("rawQuery", { sql, params }),
    },
    async close() {
      await calls.call("close").catch(() => undefined);
      await worker.terminate();
      waitedPort.close();
    },
  };
}
