import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { Prisma, PrismaClient } from "@/server/generated/prisma/client";
import { announceOnCommit, database, db, onInvalidation } from "@/server/db";
import { PGlite } from "@electric-sql/pglite";
import type { IsolationLevel } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { openPgliteThread, WORKER_TRANSACTION_OPTIONS } from "./pglite-thread";
import { copyOfPgliteTemplate, useTestEnvironment } from "@/tests/support/harness";
// @ts-expect-error: the benchmark support module is plain JavaScript without types.
import { wasmResidentOf } from "@/bench/support/wasm-resident.mjs";

useTestEnvironment();

// The migrated template every test file's database loads (tests/support/global-setup.ts): a thread
// opened on it skips initdb (a start in 1.2-1.8 s against 2.8-4.3 in one process). As a dump, for a
// database in memory; a database on disk opens a copy of its data directory, faster still.
const templatePath = () => inject("pgliteDump");
const template = () => new Blob([fs.readFileSync(templatePath())]);

// The embedded database's thread: on PostgreSQL there is none to test.
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("the embedded database on its worker thread", () => {
  it("answers Prisma's and raw statements, and brings database errors back as the driver raised them", async () => {
    const prisma = await db();
    await prisma.$executeRawUnsafe(`CREATE TABLE "ThreadProbe" ("id" int PRIMARY KEY, "note" text NOT NULL)`);
    await prisma.$executeRaw`INSERT INTO "ThreadProbe" VALUES (1, 'one')`;
    expect(await prisma.$queryRaw`SELECT "id", "note", now() AS "at" FROM "ThreadProbe"`).toEqual([
      { id: 1, note: "one", at: expect.any(Date) },
    ]);

    // A driver error keeps its SQLSTATE across the thread, so Prisma maps it as it did in-thread.
    const duplicate = await prisma.$executeRaw`INSERT INTO "ThreadProbe" VALUES (1, 'again')`.catch(
      (error: unknown) => error,
    );
    expect(duplicate).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    expect(duplicate).toMatchObject({
      code: "P2010",
      meta: { driverAdapterError: { cause: { kind: "UniqueConstraintViolation", originalCode: "23505" } } },
    });

    const raw = (await database()).raw;
    expect(await raw.query(`SELECT "note" FROM "ThreadProbe" WHERE "id" = $1`, [1])).toEqual([{ note: "one" }]);
    await expect(raw.query(`SELECT * FROM "NoSuchTable"`)).rejects.toMatchObject({
      code: "42P01",
      message: expect.stringContaining("NoSuchTable"),
    });
  });

  it("keeps a transaction's statements on it: a rollback leaves nothing, and a second transaction waits for the first", async () => {
    const prisma = await db();
    await prisma.$executeRawUnsafe(`CREATE TABLE "ThreadOrder" ("n" int NOT NULL)`);
    const failed = prisma.$transaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO "ThreadOrder" VALUES (1)`;
      throw new Error("changed my mind");
    });
    await expect(failed).rejects.toThrow("changed my mind");

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = prisma.$transaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO "ThreadOrder" VALUES (2)`;
      await held;
      await tx.$executeRaw`INSERT INTO "ThreadOrder" VALUES (3)`;
    });
    const second = prisma.$transaction(async (tx) => tx.$executeRaw`INSERT INTO "ThreadOrder" VALUES (4)`);
    setTimeout(release, 200);
    await Promise.all([first, second]);
    const rows = await prisma.$queryRaw<Array<{ n: number }>>`SELECT "n" FROM "ThreadOrder" ORDER BY ctid`;
    expect(rows.map((row) => row.n)).toEqual([2, 3, 4]);
  });

  it("sends a transaction's BEGIN with its first statement: a BEGIN that fails fails it and the commit, and leaves the connection free", async () => {
    const copy = copyOfPgliteTemplate();
    const thread = await openPgliteThread({
      dataDir: copy.dataDir,
      settings: [],
      channel: "probe",
      onNotification: () => undefined,
    });
    try {
      const adapter = await thread.adapter.connect();
      // An isolation level PostgreSQL cannot parse makes the adapter's start fail on the thread.
      const transaction = await adapter.startTransaction("NO SUCH LEVEL" as IsolationLevel);
      const query = { sql: "SELECT 1", args: [], argTypes: [] };
      await expect(transaction.queryRaw(query)).rejects.toThrow(/syntax error/);
      await expect(transaction.commit()).rejects.toThrow(/syntax error/);
      const next = await adapter.startTransaction();
      expect((await next.queryRaw({ sql: "SELECT 2 AS two", args: [], argTypes: [] })).rows).toEqual([[2]]);
      await next.commit();
    } finally {
      await thread.close();
      copy.remove();
    }
  });

  it("answers a transaction's statements after its first inline: no other task of the server's thread runs between them, and a long one still answers", async () => {
    const prisma = await db();
    await prisma.$executeRawUnsafe(`CREATE TABLE "ThreadInline" ("n" int NOT NULL)`);
    const between: string[] = [];
    await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO "ThreadInline" VALUES (0)`;
      // A task queued now runs when the server's thread next turns to its other work.
      setImmediate(() => between.push("a task ran"));
      for (let n = 1; n <= 20; n++) {
        await tx.$executeRaw`INSERT INTO "ThreadInline" VALUES (${n})`;
        between.push(`statement ${n}`);
      }
      // Longer than the inline wait: its answer comes as a message, as every answer did before.
      await tx.$queryRaw`SELECT 1 AS "slept" FROM pg_sleep(0.2)`;
      await tx.$executeRaw`INSERT INTO "ThreadInline" VALUES (21)`;
    });
    expect(between.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => `statement ${i + 1}`));
    expect(between).toContain("a task ran");
    expect(await prisma.$queryRaw`SELECT count(*)::int AS "rows" FROM "ThreadInline"`).toEqual([{ rows: 22 }]);
  });

  it("answers for its transactions what the thread's adapter answers for them", async () => {
    const copy = copyOfPgliteTemplate();
    const pglite = new PGlite(copy.dataDir);
    const adapter = await new PrismaPGlite(pglite).connect();
    const transaction = await adapter.startTransaction();
    expect(transaction.options).toEqual(WORKER_TRANSACTION_OPTIONS);
    await transaction.commit();
    await pglite.close();
    copy.remove();
  });

  it("delivers a notification made in a transaction once it commits, before the commit answers, and never after a rollback", async () => {
    const heard: string[] = [];
    onInvalidation("thread-probe", { drop: (key) => heard.push(key), dropAll: () => undefined });
    const prisma = await db();
    await prisma.$transaction(async (tx) => {
      await announceOnCommit(tx, "thread-probe", "kept");
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual(["kept"]);
    await prisma
      .$transaction(async (tx) => {
        await announceOnCommit(tx, "thread-probe", "dropped");
        throw new Error("roll back");
      })
      .catch(() => undefined);
    await prisma.$queryRaw`SELECT 1`;
    expect(heard).toEqual(["kept"]);
  });

  it("starts a crashed thread again on the next statement: what was in flight fails, what was committed stays", async () => {
    const copy = copyOfPgliteTemplate();
    let restarts = 0;
    const thread = await openPgliteThread({
      dataDir: copy.dataDir,
      settings: [],
      channel: "probe",
      onNotification: () => undefined,
      onRestart: () => restarts++,
    });
    // The server's transaction options (client.ts): a BEGIN that starts the thread again waits for
    // its start, which on a loaded machine takes longer than Prisma's default 2 s.
    const prisma = new PrismaClient({
      adapter: thread.adapter,
      transactionOptions: { maxWait: 30_000, timeout: 60_000 },
    });
    try {
      await prisma.$executeRawUnsafe(`CREATE TABLE "Kept" ("n" int NOT NULL)`);
      await prisma.$executeRaw`INSERT INTO "Kept" VALUES (1)`;
      let inTransaction!: () => void;
      const begun = new Promise<void>((resolve) => (inTransaction = resolve));
      let resume!: () => void;
      const crashed = new Promise<void>((resolve) => (resume = resolve));
      const open = prisma.$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO "Kept" VALUES (2)`;
        inTransaction();
        await crashed;
        await tx.$executeRaw`INSERT INTO "Kept" VALUES (3)`;
      });
      await begun;
      const inFlight = thread.raw.query(`SELECT count(*) FROM generate_series(1, 50000000)`);
      await thread.crash();
      resume();
      await expect(inFlight).rejects.toThrow(/thread exited/);
      await expect(open).rejects.toThrow();

      expect(await prisma.$queryRaw`SELECT "n" FROM "Kept" ORDER BY "n"`).toEqual([{ n: 1 }]);
      expect(restarts).toBe(1);

      // A crash with nothing in flight, then a transaction first (its BEGIN starts the thread again)
      // beside other statements: they share one new thread, announced once.
      await thread.crash();
      const [, others] = await Promise.all([
        prisma.$transaction(async (tx) => tx.$executeRaw`INSERT INTO "Kept" VALUES (4)`),
        Promise.all([1, 2, 3].map(() => thread.raw.query(`SELECT 1 AS "one"`))),
      ]);
      expect(others).toEqual([[{ one: 1 }], [{ one: 1 }], [{ one: 1 }]]);
      expect(restarts).toBe(2);
      expect(await thread.raw.query(`SELECT "n" FROM "Kept" ORDER BY "n"`)).toEqual([{ n: 1 }, { n: 4 }]);
    } finally {
      await prisma.$disconnect();
      await thread.close();
      copy.remove();
    }
  }, 60_000);

  it("does not start a crashed thread of a database in memory again (it would come back empty): its statements fail", async () => {
    let restarts = 0;
    const thread = await openPgliteThread({
      loadDataDir: template(),
      settings: [],
      channel: "probe",
      onNotification: () => undefined,
      onRestart: () => restarts++,
    });
    await thread.raw.exec(`CREATE TABLE "Gone" ("n" int)`);
    await thread.crash();
    await expect(thread.raw.query(`SELECT * FROM "Gone"`)).rejects.toThrow(/thread exited/);
    expect(restarts).toBe(0);
    await thread.close();
  });

  it("fails to open, rather than waiting forever, when the database cannot start", async () => {
    const opening = openPgliteThread({
      loadDataDir: new Blob(["not a data directory"]),
      settings: [],
      channel: "probe",
      onNotification: () => undefined,
    });
    await expect(opening).rejects.toThrow();
  });

  it("vacuums and analyzes, as autovacuum would, the tables left with dead rows (PGlite runs none of its own)", async () => {
    const copy = copyOfPgliteTemplate();
    const thread = await openPgliteThread({
      dataDir: copy.dataDir,
      settings: [],
      channel: "probe",
      onNotification: () => undefined,
      vacuumEveryMs: 100,
    });
    try {
      await thread.raw.exec(`CREATE TABLE "Churn" ("id" int PRIMARY KEY, "done" boolean NOT NULL DEFAULT false)`);
      await thread.raw.exec(`INSERT INTO "Churn" SELECT g FROM generate_series(1, 2000) AS g`);
      await thread.raw.exec(`UPDATE "Churn" SET "done" = true`);
      const stats = () =>
        thread.raw.query<{ dead: number; vacuums: number; analyzes: number }>(
          `SELECT n_dead_tup::int AS dead, (vacuum_count + autovacuum_count)::int AS vacuums, (analyze_count + autoanalyze_count)::int AS analyzes FROM pg_stat_user_tables WHERE relname = 'Churn'`,
        );
      const done = async () => {
        const [row] = await stats();
        return row.vacuums > 0 && row.analyzes > 0 && row.dead === 0;
      };
      await expect.poll(done, { timeout: 15_000, interval: 200 }).toBe(true);
      const [after] = await stats();
      // A table with nothing to do is left alone: no vacuum after the one it needed.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await stats())[0].vacuums).toBe(after.vacuums);
    } finally {
      await thread.close();
      copy.remove();
    }
  });

  it("keeps no more resident memory after analyzing a large table than a small sample needs (WebAssembly memory keeps its peak)", async () => {
    const raw = (await database()).raw;
    const before = wasmResidentOf(process.pid);
    await raw.exec(`CREATE TABLE "Sampled" ("id" int PRIMARY KEY, "body" text NOT NULL)`);
    await raw.exec(`INSERT INTO "Sampled" SELECT g, repeat(md5(g::text), 12) FROM generate_series(1, 40000) AS g`);
    await raw.exec(`ANALYZE "Sampled"`);
    // PostgreSQL's default statistics target samples 30,000 of these 400-byte rows: +16 MB, for good.
    expect((wasmResidentOf(process.pid) - before) / 2 ** 20).toBeLessThan(6);
    const [{ rows }] = await raw.query<{ rows: number }>(
      `SELECT reltuples::int AS rows FROM pg_class WHERE relname = 'Sampled'`,
    );
    expect(rows).toBe(40000);
  });

  describe("in a script of its own that never closes it", () => {
    // One child process for both (its start, tsx and PGlite's, took 20-40 s in CI).
    let run: SpawnSyncReturns<string>;
    beforeAll(() => {
      const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-thread-")), "script.mts");
      fs.writeFileSync(
        script,
        `import fs from "node:fs";
        import v8 from "node:v8";
        import ${JSON.stringify(path.resolve("heap-flags.mjs"))};
        import { openPgliteThread } from ${JSON.stringify(path.resolve("server/db/pglite-thread.ts"))};
        const youngMb = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size / 1048576;
        const before = youngMb();
        const thread = await openPgliteThread({ loadDataDir: new Blob([fs.readFileSync(${JSON.stringify(templatePath())})]), settings: [], channel: "probe", onNotification: () => {} });
        const [{ answer }] = await thread.raw.query("SELECT 6 * 7 AS answer");
        const kept = [];
        for (let i = 0; i < 5_000_000; i++) {
          const garbage = { i, pair: [i, i + 1], name: "n" + i };
          if (i % 1000 === 0) kept.push(garbage);
        }
        console.log(JSON.stringify({ answer, kept: kept.length, before, after: youngMb() }));`,
      );
      run = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 60_000 });
      fs.rmSync(path.dirname(script), { recursive: true });
    }, 70_000);

    it("does not let the server's young generation grow once it runs: V8 before Node 24 raises its growth factor when a thread starts", () => {
      expect(run.stderr).toBe("");
      const { kept, before, after } = JSON.parse(run.stdout) as { kept: number; before: number; after: number };
      expect(kept).toBe(5000);
      // Not grown (Node 24 may shrink it); without the flags set again, 32 MB on Node 20 and 22 (the
      // script starts at 8 MB: tsx loads first).
      expect(after).toBeLessThanOrEqual(before);
    });

    it("does not keep the process alive (a script ends when its work does)", () => {
      expect(run.stderr).toBe("");
      expect(JSON.parse(run.stdout)).toMatchObject({ answer: 42 });
      expect(run.error).toBeUndefined(); // not ended by spawnSync's timeout
      expect(run.status).toBe(0);
    });
  });
});
