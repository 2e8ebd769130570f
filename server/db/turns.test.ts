import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { postgresTurns, type Turns } from "./turns";

const env = useTestEnvironment();

/** Another instance's turns on the same database. */
let other: Turns;
let observer: pg.Client;

/**
 * Row versions VACUUM leaves behind after 20 updates of a probe table made now: those an older
 * snapshot may still see. Vacuumed up to 5 times, 50 ms apart: a statement of this file's
 * background work running at that moment holds its own snapshot for a moment, an open transaction
 * for as long as it stays open.
 */
async function deadRowsVacuumKeeps(): Promise<number> {
  await observer.query("CREATE TABLE IF NOT EXISTS turn_probe (id int PRIMARY KEY, v int)");
  await observer.query("INSERT INTO turn_probe VALUES (1, 0) ON CONFLICT (id) DO NOTHING");
  for (let i = 0; i < 20; i++) await observer.query("UPDATE turn_probe SET v = v + 1");
  let dead = -1;
  for (let attempt = 0; attempt < 5 && dead !== 0; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await observer.query("VACUUM turn_probe");
    const { rows } = await observer.query<{ dead: string }>(
      "SELECT n_dead_tup AS dead FROM pg_stat_user_tables WHERE relname = 'turn_probe'",
    );
    dead = Number(rows[0].dead);
  }
  return dead;
}

describe.runIf(process.env.TEST_DATABASE_URL)("turns (PostgreSQL)", () => {
  beforeAll(async () => {
    other = postgresTurns(pg.Client, env.databaseUrl!, 5_000);
    observer = new pg.Client({ connectionString: env.databaseUrl });
    await observer.connect();
  });
  afterAll(async () => {
    await other.close();
    await observer.end();
  });

  it("a turn held for long keeps no snapshot: vacuum removes what dies meanwhile (a transaction holding its lock did not)", async () => {
    const turns = env.database.turns!;
    let during = -1;
    expect(await turns.take("queue:probe", async () => void (during = await deadRowsVacuumKeeps()))).toBe(true);
    expect(during).toBe(0);

    // The control, the queue's way before turns (852c6ea): the same lock held by an open transaction.
    let underTransaction = -1;
    await env.database.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT pg_try_advisory_xact_lock(hashtext(${"queue:probe"}))`;
      underTransaction = await deadRowsVacuumKeeps();
    });
    expect(underTransaction).toBe(20);
  });

  it("one holder at a time across instances and within one; a failed turn lets go", async () => {
    const turns = env.database.turns!;
    const ran: string[] = [];
    await turns.take("queue:a", async () => {
      expect(await other.take("queue:a", async () => void ran.push("other a"))).toBe(false);
      expect(await turns.take("queue:a", async () => void ran.push("again a"))).toBe(false);
      expect(await other.take("queue:b", async () => void ran.push("other b"))).toBe(true);
    });
    expect(ran).toEqual(["other b"]);
    expect(await other.take("queue:a", async () => void ran.push("other a"))).toBe(true);

    await expect(turns.take("queue:a", () => Promise.reject(new Error("the turn's work failed")))).rejects.toThrow(
      "the turn's work failed",
    );
    expect(await other.take("queue:a", async () => void ran.push("other a after a failure"))).toBe(true);
    expect(ran).toEqual(["other b", "other a", "other a after a failure"]);
  });

  it("a turn whose connection is lost is another's to take; the next turn connects again", async () => {
    const turns = env.database.turns!;
    let otherTook: boolean | undefined;
    await turns.take("queue:lost", async () => {
      const { rows } = await observer.query<{ pid: number }>(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      );
      expect(rows).toHaveLength(1);
      await observer.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
      // The server ends the session, and with it the lock, at once; another instance takes the turn.
      for (let attempt = 0; attempt < 50 && !otherTook; attempt++) {
        otherTook = await other.take("queue:lost", async () => undefined);
        if (!otherTook) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    expect(otherTook).toBe(true);
    expect(await turns.take("queue:lost", async () => undefined)).toBe(true);
  });
});
