import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, db, openDatabase, useDatabase } from "@/server/db/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";

const env = useTestEnvironment();

// Times written by SQL (`now()`, column defaults) on a server whose TimeZone is 12:45 ahead of UTC:
// stored as the server's local time they would read back 12.75 hours in the future.
describe.runIf(process.env.TEST_DATABASE_URL)("times written on a PostgreSQL server that is not set to UTC", () => {
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: env.databaseUrl });
    await admin.connect();
    const name = new URL(env.databaseUrl!).pathname.slice(1);
    await admin.query(`ALTER DATABASE ${name} SET TimeZone = 'Pacific/Chatham'`);
    await admin.end();
    const fresh = new pg.Client({ connectionString: env.databaseUrl });
    await fresh.connect();
    expect((await fresh.query("SHOW TimeZone")).rows[0].TimeZone).toBe("Pacific/Chatham");
    await fresh.end();
    // Connections opened from now on start in the database's zone.
    await closeDatabase();
    useDatabase(await openDatabase({ url: env.databaseUrl, migrate: false }));
  });

  it("are UTC: a merge's time and its events' times are now, not hours away", async () => {
    const before = Date.now();
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect((await merge(alice.token, change.id)).status).toBe(200);
    const after = Date.now();

    const near = (at: Date | string | null) => {
      const time = new Date(at!).getTime();
      expect(time, String(at)).toBeGreaterThanOrEqual(before - 1000);
      expect(time, String(at)).toBeLessThanOrEqual(after + 1000);
    };
    const read = await call("GET", `/api/changes/${change.id}`, { token: alice.token });
    near(read.body.change.mergedAt);
    near(read.body.change.updatedAt);
    const events = await (await db()).domainEvent.findMany({ where: { projectId: project.id } });
    expect(events.map((event) => event.kind)).toContain("change.merged");
    for (const event of events) near(event.occurredAt);
  });
});
