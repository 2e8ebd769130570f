import path from "node:path";
import { pathToFileURL } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
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
import { log, noteWait } from "@/server/log";

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
 * it), `{ready}` or `{failed}` once at start. A request marked `inline` is answered on the `answers`
 * port instead, and the thread then counts up `answered[0]` (see WorkerCalls.waitInline).
 */
const ADAPTER_NAME = "pglite-prisma-adapter";
/** The longest the server's thread blocks for an inline answer (a statement takes 1-3 ms; a batch's inserts tens). */
const INLINE_WAIT_MS = 50;
/** What the thread's adapter (PrismaPGlite) answers for every transaction it starts (a test pins it). */
export const WORKER_TRANSACTION_OPTIONS: TransactionOptions = { usePhantomQuery: true };

type SerializedError = { driver: DriverAdapterError["cause"] } | { message: string; fields: Record<string, unknown> };
type Answer = { id: number; value?: unknown; error?: SerializedError };
type Message =
  | Answer
  | { notification: string }
  | { ready: true }
  | { failed: SerializedError }
  | { warning: { msg: string; err: string } };

function toError(error: SerializedError): Error {
  if ("driver" in error) return new DriverAdapterError(error.driver);
  return Object.assign(new Error(error.message), error.fields);
}

type WorkerOptions = { file: string; workerData: Record<string, unknown>; onNotification: (payload: string) => void };
type Lifecycle = { restartable: boolean; onRestart: () => void };

/** A started thread: its worker, the port of its inline answers and the count it raises after each. */
type Thread = { worker: Worker; answers: MessagePort; answered: Int32Array };

/** The thread's first statement, run before its module loads: its heap is set up by then. */
const SAY_HEAP_SET_UP = `const { workerData } = require("node:worker_threads");
Atomics.store(workerData.heapSetUp, 0, 1);
Atomics.notify(workerData.heapSetUp, 0);
import(workerData.entry);`;
/** The longest the server's thread waits for a starting thread's heap (it took 20-26 ms). */
const HEAP_SET_UP_WAIT_MS = 2_000;

/**
 * Starts the worker with the server's heap flags intact. V8 before Node 24 raises the semi-space
 * growth factor back to 2, process-wide, when it sets up a thread's heap; `npm start` (server.mjs)
 * keeps it at 1 and leaves a hook to set it again. This thread waits, allocating nothing, until the
 * worker's heap is set up, then calls it: called later (on the worker's `online`) it lost the race
 * now and then, and a young generation grown meanwhile stays grown under load. Without the hook
 * (tests, scripts) nothing was set, so nothing waits.
 */
function spawnWorker(options: WorkerOptions, data: Record<string, unknown>, transferList: MessagePort[]): Worker {
  const reapplyServerHeapFlags = (globalThis as Record<symbol, (() => void) | undefined>)[
    Symbol.for("svc.reapplyServerHeapFlags")
  ];
  const heapSetUp = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(/*turbopackIgnore: true*/ SAY_HEAP_SET_UP, {
    eval: true,
    workerData: { ...data, heapSetUp, entry: pathToFileURL(options.file).href },
    transferList,
  });
  if (reapplyServerHeapFlags) {
    Atomics.wait(heapSetUp, 0, 0, HEAP_SET_UP_WAIT_MS);
    reapplyServerHeapFlags();
  }
  return worker;
}

/** Starts the worker and waits for its `{ready}`; answers (inline ones come late) and notifications go to `onMessage`. */
function startWorker(options: WorkerOptions, onMessage: (message: Answer) => void): Promise<Thread> {
  const { port1: answers, port2 } = new MessageChannel();
  const answered = new Int32Array(new SharedArrayBuffer(4));
  const worker = spawnWorker(options, { ...options.workerData, answers: port2, answered }, [port2]);
  answers.on("message", onMessage);
  answers.unref();
  return new Promise<Thread>((resolve, reject) => {
    worker.on("message", (message: Message) => {
      if ("notification" in message) options.onNotification(message.notification);
      else if ("warning" in message) log().warn({ err: message.warning.err }, message.warning.msg);
      else if ("ready" in message) resolve({ worker, answers, answered });
      else if ("failed" in message) reject(toError(message.failed));
      else onMessage(message);
    });
    worker.once("error", reject);
    worker.once("exit", (code) =>
      reject(new Error(`the embedded database's thread exited (code ${code}) before it was ready`)),
    );
  });
}

/**
 * Calls into the worker; keeps the process alive only while one is pending (scripts that never
 * close still exit). A thread that ends unasked (a crash: WebAssembly out of memory, a bug) fails
 * the calls it had and is started again by the next call, on the same data directory: PostgreSQL's
 * recovery keeps what was committed. Its transactions ended with it, so their later statements
 * fail (a transaction's id is the thread's own: a new thread hands the same ids out again). A
 * database in memory is not started again (it would come back empty): its calls fail from then on.
 */
class WorkerCalls {
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private nextTransaction = 1;
  private worker: Worker | undefined;
  private inline: Omit<Thread, "worker"> | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  private lost: Error | undefined;
  /** Which thread this is, counted from 1: a transaction belongs to the thread it began on. */
  generation = 0;

  constructor(
    private readonly options: WorkerOptions,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** Starts the first thread (its failure is the open's). */
  open(): Promise<void> {
    return this.start();
  }

  /**
   * Sends `op` to the thread. `inline`: the server's thread waits for the answer (up to
   * INLINE_WAIT_MS, then as any other), so the caller goes on before anything else this thread has
   * to do; only for a statement the thread runs at once (one of a transaction already holding the
   * connection), never for one that may wait for the connection, which a blocked thread could hold.
   */
  call<T>(op: string, args: Record<string, unknown> = {}, generation?: number, inline = false): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the embedded database is closed"));
    if (this.lost) return Promise.reject(this.lost);
    if (generation !== undefined && generation !== this.generation) {
      return Promise.reject(
        new Error("the embedded database's thread ended during this transaction; it was rolled back"),
      );
    }
    const worker = this.worker;
    if (!worker) return this.start().then(() => this.call<T>(op, args, generation, inline));
    const id = this.nextId++;
    if (this.pending.size === 0) worker.ref();
    const sent = performance.now();
    const answered = this.inline && inline ? Atomics.load(this.inline.answered, 0) : undefined;
    const answer = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve, reject });
      worker.postMessage({ id, op, inline: answered !== undefined, ...args });
    }).finally(() => noteWait("db", performance.now() - sent));
    if (answered !== undefined) this.waitInline(id, answered);
    return answer;
  }

  /**
   * Blocks until call `id`'s inline answer is in (Atomics.wait on the count the thread raises after
   * posting one), then settles it; its awaiting caller then resumes in this tick's microtasks. Gives
   * up after INLINE_WAIT_MS: the answer then comes as a message (a long statement, a thread that died).
   */
  private waitInline(id: number, answered: number): void {
    const { answers, answered: count } = this.inline!;
    const deadline = performance.now() + INLINE_WAIT_MS;
    for (;;) {
      for (let message = receiveMessageOnPort(answers); message; message = receiveMessageOnPort(answers))
        this.answer(message.message as Answer);
      const left = deadline - performance.now();
      if (!this.pending.has(id) || left <= 0) return;
      Atomics.wait(count, 0, answered, left);
      answered = Atomics.load(count, 0);
    }
  }

  /**
   * A new transaction of the current thread. Nothing is sent yet: its BEGIN travels with its first
   * statement (see WorkerTransaction).
   */
  async transaction(): Promise<{ id: number; generation: number }> {
    if (!this.worker) await this.start();
    return { id: this.nextTransaction++, generation: this.generation };
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (worker) await this.call("close").catch(() => undefined);
    this.closed = true;
    this.worker = undefined;
    this.inline?.answers.close();
    this.inline = undefined;
    await worker?.terminate();
  }

  /** Ends the thread as a crash would (tests: the next call starts another). */
  async crash(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Starts a thread; calls that find none while one starts share it (and the restart is announced once). */
  private start(): Promise<void> {
    this.starting ??= startWorker(this.options, (answer) => this.answer(answer))
      .then((thread) => this.attach(thread))
      .finally(() => (this.starting = undefined));
    return this.starting;
  }

  private attach({ worker, ...inline }: Thread): void {
    this.worker = worker;
    this.inline = inline;
    this.generation++;
    worker.on("error", (error) => this.ended(worker, error));
    worker.once("exit", (code) =>
      this.ended(worker, new Error(`the embedded database's thread exited (code ${code})`)),
    );
    worker.unref();
    if (this.generation > 1) {
      log().error({ thread: this.generation }, "db: the embedded database's thread was started again");
      this.lifecycle.onRestart();
    }
  }

  private answer({ id, value, error }: Answer): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
    if (error) call.reject(toError(error));
    else call.resolve(value);
  }

  /** The thread is gone: its pending calls fail rather than wait forever; the next call starts another. */
  private ended(worker: Worker, reason: Error): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    this.inline?.answers.close();
    this.inline = undefined;
    if (!this.closed) log().error({ err: reason.message }, "db: the embedded database's thread ended");
    if (!this.lifecycle.restartable) this.lost ??= reason;
    for (const call of this.pending.values()) call.reject(reason);
    this.pending.clear();
  }
}

class WorkerQueryable implements SqlQueryable {
  readonly provider = "postgres";
  readonly adapterName = ADAPTER_NAME;

  constructor(protected readonly calls: WorkerCalls) {}

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.calls.call("query", { query });
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.calls.call("execute", { query });
  }
}

/**
 * A transaction begins on the thread with its first statement (the message carries the BEGIN), so
 * PGlite's one connection is held from that statement on, never while the server's thread does
 * other work first or while a BEGIN's answer waits its turn in its event loop (10-15 ms under a
 * fleet's load, measured). One that sends no statement sends nothing at all. A BEGIN that fails
 * fails that first statement.
 *
 * Once the first statement answered, the transaction holds the connection and the thread runs its
 * statements at once: they are answered inline (WorkerCalls.call), so the connection is not held
 * while their answers wait behind the server thread's other work (20 of a ref move's 34 ms under a
 * fleet, measured). Its commit or rollback need not be: the connection is free once it ran.
 */
class WorkerTransaction implements Transaction {
  readonly provider = "postgres";
  readonly adapterName = ADAPTER_NAME;
  private begun = false;
  /** The first statement answered: the transaction holds the connection. */
  private holding = false;

  constructor(
    private readonly calls: WorkerCalls,
    private readonly transaction: { id: number; generation: number },
    private readonly isolationLevel: IsolationLevel | undefined,
    readonly options: TransactionOptions,
  ) {}

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.statement("query", query);
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.statement("execute", query);
  }

  commit(): Promise<void> {
    return this.finish("commit");
  }

  rollback(): Promise<void> {
    return this.finish("rollback");
  }

  private statement<T>(op: "query" | "execute", query: SqlQuery): Promise<T> {
    const begin = this.begun ? undefined : { isolationLevel: this.isolationLevel };
    this.begun = true;
    const args = { tx: this.transaction.id, begin, query };
    const answer = this.calls.call<T>(op, args, this.transaction.generation, this.holding);
    if (begin) void answer.then(this.held, this.held);
    return answer;
  }

  private readonly held = () => {
    this.holding = true;
  };

  private async finish(op: "commit" | "rollback"): Promise<void> {
    if (this.begun) await this.calls.call(op, { tx: this.transaction.id }, this.transaction.generation);
  }
}

class WorkerAdapter extends WorkerQueryable implements SqlDriverAdapter {
  executeScript(script: string): Promise<void> {
    return this.calls.call("script", { script });
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    return new WorkerTransaction(
      this.calls,
      await this.calls.transaction(),
      isolationLevel,
      WORKER_TRANSACTION_OPTIONS,
    );
  }

  getConnectionInfo() {
    return { supportsRelationJoins: true };
  }

  async dispose(): Promise<void> {}
}

/** The embedded database thread's memory: PostgreSQL's WebAssembly memory (null if PGlite hides it) and the thread's JS heap. */
export interface DatabaseMemory {
  wasmBytes: number | null;
  heapUsedBytes: number;
}

export interface PgliteThread {
  adapter: SqlDriverAdapterFactory;
  raw: RawSql;
  close(): Promise<void>;
  memory(): Promise<DatabaseMemory>;
  /** Ends the thread as a crash would; the next statement starts another (tests). */
  crash(): Promise<void>;
}

/**
 * Starts PGlite on a worker thread (`dataDir` must already exist; without one, in memory, from
 * `loadDataDir` if given). `onRestart` runs when the thread of a data directory, having ended
 * unasked, has been started again (notifications it had not delivered are lost).
 */
export async function openPgliteThread(options: {
  dataDir?: string;
  loadDataDir?: Blob;
  settings: string[];
  channel: string;
  onNotification: (payload: string) => void;
  onRestart?: () => void;
  /** How often the thread vacuums and analyzes the tables that need it (pglite-worker.mjs); never without. */
  vacuumEveryMs?: number;
}): Promise<PgliteThread> {
  const file = path.join(process.cwd(), "server", "db", "pglite-worker.mjs");
  const loadDataDir = options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined;
  const workerData = {
    dataDir: options.dataDir,
    settings: options.settings,
    channel: options.channel,
    loadDataDir,
    vacuumEveryMs: options.vacuumEveryMs,
  };
  const lifecycle = { restartable: Boolean(options.dataDir), onRestart: options.onRestart ?? (() => {}) };
  const calls = new WorkerCalls({ file, workerData, onNotification: options.onNotification }, lifecycle);
  await calls.open();
  const adapter = new WorkerAdapter(calls);
  return {
    adapter: { provider: "postgres", adapterName: ADAPTER_NAME, connect: async () => adapter },
    raw: {
      exec: (sql) => calls.call("rawExec", { sql }),
      query: (sql, params) => calls.call("rawQuery", { sql, params }),
    },
    close: () => calls.close(),
    memory: () => calls.call<DatabaseMemory>("memory", {}),
    crash: () => calls.crash(),
  };
}
