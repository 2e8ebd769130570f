import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import v8 from "node:v8";
import { PrismaClient } from "@/server/generated/prisma/client";
import { config } from "@/server/config";
import { applyMigrations, type RawSql } from "./migrate";
import { lockDataDir } from "./data-dir-lock";
import { openPgliteThread, type DatabaseMemory, type PgliteThread } from "./pglite-thread";
import { timedAdapter } from "./timed-adapter";
import { postgresTurns, type Turns } from "./turns";
import { CHANNEL, dispatchNotification, dropAllTopics } from "./topics";
import { log } from "@/server/log";

export type Db = PrismaClient;

const CONNECT_TIMEOUT_MS = 5_000;
/**
 * Prisma's defaults fail a transaction that waited 2 s to start (P2028) or ran 5 s: on PGlite's one
 * connection a transaction queues behind every other one, so a busy moment (a queue landing, a
 * loaded machine) turned waiting into 500s. A transaction waits its turn like any query; the
 * timeout still ends a runaway one.
 */
const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 60_000 };
/**
 * PostgreSQL's default shared_buffers (128 MB) lives inside PGlite's WebAssembly memory, which never
 * shrinks; the embedded database serves one process and reads its files through the OS page cache.
 * PGlite touches all of it at start: 8 MB holds a fleet's working set, and the database's resident
 * memory starts at 26 MB instead of 34 at 16 MB and 52 at 32 MB (bench/soak, 50 agents: no fewer
 * changes landed).
 * ANALYZE reads a sample of 300 rows per unit of `default_statistics_target` and holds it in memory;
 * WebAssembly memory keeps its peak, so PostgreSQL's default (100: 30,000 rows) left a fleet's server
 * 17 MB more resident for good within 3 minutes, once its largest tables passed 30,000 rows (docs/soak,
 * round 23). 10 (3,000 rows; PostgreSQL's default before 8.4) costs about 1 MB, and the planner still
 * knows each table's size and its most common values.
 */
const PGLITE_SETTINGS = ["shared_buffers = 8MB", "default_statistics_target = 10"];
/** How often the embedded database vacuums what needs it (it has no autovacuum): a few ms each time under a fleet. */
const PGLITE_VACUUM_EVERY_MS = 5_000;
/** The client handed to `db.$transaction(async (tx) => ...)` callbacks. */
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
/** Either the client or a transaction: services accept this so callers can compose transactions. */
export type DbOrTx = Db | Tx;

export interface Database {
  prisma: Db;
  raw: RawSql;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
  /** The embedded database's memory (its thread); absent on PostgreSQL, whose memory is its own server's. */
  memory?(): Promise<DatabaseMemory>;
  /** Turns shared with every instance on the database; absent on PGlite, which one process owns. */
  turns?: Turns;
}

/**
 * Makes a new PGlite data directory in a short-lived child process (pglite-initdb.mjs: initdb, or a
 * copy of its first output). Done in this process, initdb's WebAssembly module and memory stay
 * reachable for the life of the server (about 450 MB of RSS measured with bench/users-me); a child
 * hands back the disk and keeps nothing.
 */
async function initPgliteDataDir(dataDir: string): Promise<void> {
  if (fs.existsSync(path.join(dataDir, "PG_VERSION"))) return;
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const script = path.join(process.cwd(), "server", "db", "pglite-initdb.mjs");
  await promisify(execFile)(process.execPath, [script, dataDir], { cwd: process.cwd() });
}

async function openPglite(dataDir: string | undefined, loadDataDir?: Blob): Promise<Database> {
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let thread: PgliteThread;
  try {
    if (dataDir) await initPgliteDataDir(dataDir);
    // The embedded database is this process's alone: notifications made in its transactions
    // (announceOnCommit) come back here at commit, as they would from a PostgreSQL listener, and
    // those a crashed thread had not delivered are made up for as after a lost listener.
    thread = await openPgliteThread({
      dataDir,
      loadDataDir,
      settings: PGLITE_SETTINGS,
      channel: CHANNEL,
      onNotification: dispatchNotification,
      onRestart: dropAllTopics,
      vacuumEveryMs: PGLITE_VACUUM_EVERY_MS,
    });
  } catch (error) {
    unlock();
    throw error;
  }
  const prisma = new PrismaClient({ adapter: thread.adapter, transactionOptions: TRANSACTION_OPTIONS });
  return {
    prisma,
    raw: thread.raw,
    kind: "pglite",
    memory: () => thread.memory(),
    async close() {
      await prisma.$disconnect();
      await thread.close();
      unlock();
    },
  };
}

/**
 * Prisma's query compiler is a 3.4 MB WebAssembly module. V8 compiles it first with its baseline
 * compiler (Liftoff), then recompiles it with the optimizing one (TurboFan) in background threads,
 * whose scratch memory glibc keeps: about 40 MB of resident memory for the life of the server
 * (bench/users-me on PostgreSQL). Compiled query plans are cached, so the compiler runs once per
 * query shape and the baseline code costs no measurable CPU per request. Not for PGlite: there all
 * SQL runs in WebAssembly and needs the optimized code. Wasm compilation reads the flag when a
 * module is compiled, so it takes effect for the client created below.
 */
function compileWasmWithBaselineOnly(): void {
  v8.setFlagsFromString("--liftoff-only");
}

/**
 * Columns hold UTC (`timestamp(3)`, as Prisma writes them), but a `now()` or a column default stored
 * in one is the time in the session's zone, which is the server's `TimeZone` unless told: on a
 * server not set to UTC, every time written by SQL (merges, events, queue entries, deployments) was
 * off by its offset. A SET rather than a startup `options` parameter, which PgBouncer refuses; the
 * pool hands a new connection out only after it (pg-pool's `onConnect`: a SET merely queued before
 * the first query is what pg deprecates, and pg 9 refuses).
 */
const inUtc = (client: { query(sql: string): Promise<unknown> }) => client.query("SET TIME ZONE 'UTC'");

/**
 * How long the pool keeps a connection nobody uses. pg-pool's default, 10 s, is shorter than the gap
 * between a fleet's bursts (a batch lands, its agents commit and open together, then wait for the
 * next batch's suite): every burst opened its connections again, 154 in a 2-minute fleet on a pool
 * of 30, each a PostgreSQL backend forked and a SET answered before the burst's first statement on
 * it. A minute, like the HTTP keep-alive (keep-alive.mjs); PgBouncer or the server may close sooner,
 * and the pool then connects again.
 */
const POOL_IDLE_MS = 60_000;

async function openPostgres(url: string): Promise<Database> {
  compileWasmWithBaselineOnly();
  const pg = (await import("pg")).default;
  const { PrismaPg } = await import("@prisma/adapter-pg");
  // pg-pool bounds by one setting both a new connection's connect and a query's wait for a free one.
  // Under load every connection can be busy for seconds (a fleet of 50 agents on one instance:
  // requests failed with 500 after 5 s), so a query waits as long as a transaction waits for its
  // turn; an unreachable server fails a request after that (/api/health has its own short bound).
  const pool = new pg.Pool({
    connectionString: url,
    max: config.databasePoolSize,
    connectionTimeoutMillis: TRANSACTION_OPTIONS.maxWait,
    idleTimeoutMillis: POOL_IDLE_MS,
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- pg-pool awaits it (its types say void)
    onConnect: inUtc,
  });
  // An idle connection dropped by the server (restart, failover) must not crash the process; the
  // pool replaces it on next use.
  pool.on("error", (error) => log().error({ err: error.message }, "db: an idle PostgreSQL connection failed"));
  const prisma = new PrismaClient({
    adapter: timedAdapter(new PrismaPg(pool)),
    transactionOptions: TRANSACTION_OPTIONS,
  });
  const raw: RawSql = {
    exec: async (sql) => void (await pool.query(sql)),
    query: async <T>(sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows as T[],
  };
  const turns = postgresTurns(pg.Client, url, CONNECT_TIMEOUT_MS);
  return {
    prisma,
    raw,
    kind: "postgres",
    turns,
    async close() {
      await turns.close();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** Applies pending migrations: on PostgreSQL on one dedicated connection (the migrator needs its advisory lock and every statement there). */
async function migrate(database: Database, url: string | undefined): Promise<void> {
  if (database.kind !== "postgres") {
    await applyMigrations(database.raw);
    return;
  }
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    await applyMigrations({
      exec: async (sql) => void (await client.query(sql)),
      query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
    });
  } finally {
    await client.end();
  }
}

/** Opens the configured database and applies pending migrations. */
export async function openDatabase(
  options: { url?: string; dataDir?: string; loadDataDir?: Blob; migrate?: boolean } = {},
): Promise<Database> {
  const url = options.url ?? config.databaseUrl;
  const database = url
    ? await openPostgres(url)
    : await openPglite(
        options.dataDir ?? (options.loadDataDir ? undefined : path.join(config.dataDir, "db")),
        options.loadDataDir,
      );
  if (options.migrate !== false) {
    try {
      await migrate(database, url);
    } catch (error) {
      await database.close().catch(() => undefined);
      throw error;
    }
  }
  return database;
}

// Process-wide singleton on globalThis: Next.js loads separate module copies for
// instrumentation and route handlers, and two PGlite instances on one directory corrupt it.
const holder = globalThis as unknown as { __svcDatabase?: Promise<Database> };

/** The process-wide database, opened on first use. A failed open is not kept: the next call tries again. */
export function database(): Promise<Database> {
  if (!holder.__svcDatabase) {
    const opening = openDatabase();
    holder.__svcDatabase = opening;
    opening.catch(() => {
      if (holder.__svcDatabase === opening) holder.__svcDatabase = undefined;
    });
  }
  return holder.__svcDatabase;
}

/** The Prisma client of the process-wide database. */
export async function db(): Promise<Db> {
  return (await database()).prisma;
}

/** Installs an already-open database as the process-wide one (tests, scripts). */
export function useDatabase(value: Database): void {
  holder.__svcDatabase = Promise.resolve(value);
}

export async function closeDatabase(): Promise<void> {
  const current = holder.__svcDatabase;
  holder.__svcDatabase = undefined;
  if (current) await (await current).close();
}
