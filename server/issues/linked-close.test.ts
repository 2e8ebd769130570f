import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { closeIssuesLinkedToChange } from "./service";
import { createTestChange, createTestProject, type TestUser } from "./test-fixtures";

const env = useTestEnvironment();

let owner: TestUser;
let project: Awaited<ReturnType<typeof createTestProject>>;

beforeAll(async () => {
  owner = await createTestUser();
  project = await createTestProject(owner);
});

async function openLinked(title: string, linkedChangeId?: string) {
  const res = await call("POST", `${project.base}/issues`, { token: owner.token, body: { title, linkedChangeId } });
  expect(res.status).toBe(201);
  return res.body.issue.number as number;
}

const issue = async (number: number) =>
  (await call("GET", `${project.base}/issues/${number}`, { token: owner.token })).body.issue;

describe("closeIssuesLinkedToChange", () => {
  it("closes the open issues linked to the change inside the caller's transaction, by system, with issue.closed each", async () => {
    const change = await createTestChange(project.id);
    const other = await createTestChange(project.id);
    const a = await openLinked("a", change.id);
    const b = await openLinked("b", change.id);
    const alreadyClosed = await openLinked("c", change.id);
    await call("POST", `${project.base}/issues/${alreadyClosed}/close`, { token: owner.token });
    const unrelated = await openLinked("d", other.id);

    const prisma = await db();
    const closed = await prisma.$transaction((tx) =>
      closeIssuesLinkedToChange(tx, { projectId: project.id, changeId: change.id }),
    );
    expect(closed).toEqual([a, b]);
    for (const number of [a, b]) expect(await issue(number)).toMatchObject({ status: "closed", closedBy: "system" });
    expect((await issue(unrelated)).status).toBe("open");
    const events = (await call("GET", `${project.base}/activity`, { token: owner.token })).body.events;
    const systemClosed = events.filter(
      (e: { kind: string; actor: string }) => e.kind === "issue.closed" && e.actor === "system",
    );
    expect(
      systemClosed.map((e: { data: { number: number; changeId: string } }) => [e.data.number, e.data.changeId]),
    ).toEqual([
      [b, change.id],
      [a, change.id],
    ]);
  });

  it("is rolled back with the caller's transaction", async () => {
    const change = await createTestChange(project.id);
    const number = await openLinked("rolled back", change.id);
    const prisma = await db();
    await expect(
      prisma.$transaction(async (tx) => {
        await closeIssuesLinkedToChange(tx, { projectId: project.id, changeId: change.id });
        throw new Error("merge failed later");
      }),
    ).rejects.toThrow("merge failed later");
    expect((await issue(number)).status).toBe("open");
  });

  it("logs and skips an issue that cannot be closed, and the caller's transaction still commits", async () => {
    const change = await createTestChange(project.id);
    const good = await openLinked("good", change.id);
    const bad = await openLinked("bad", change.id);
    const bad2 = await openLinked("also good", change.id);
    // A real database failure for one row: a trigger that refuses to close issue `bad`.
    await env.database.raw.exec(`
      CREATE FUNCTION refuse_close() RETURNS trigger AS $$
      BEGIN
        IF NEW.number = ${bad} AND NEW."projectId" = '${project.id}' THEN RAISE EXCEPTION 'refused'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_close BEFORE UPDATE ON "Issue" FOR EACH ROW EXECUTE FUNCTION refuse_close();`);
    try {
      const prisma = await db();
      const marker = await prisma.$transaction(async (tx) => {
        const closed = await closeIssuesLinkedToChange(tx, { projectId: project.id, changeId: change.id });
        // The merge goes on writing in the same transaction after the failed issue.
        await tx.change.update({ where: { id: change.id }, data: { status: "merged" } });
        return closed;
      });
      expect(marker).toEqual([good, bad2]);
      expect((await issue(good)).status).toBe("closed");
      expect((await issue(bad)).status).toBe("open");
      expect((await issue(bad2)).status).toBe("closed");
      expect((await prisma.change.findUniqueOrThrow({ where: { id: change.id } })).status).toBe("merged");
    } finally {
      await env.database.raw.exec(`DROP TRIGGER refuse_close ON "Issue"; DROP FUNCTION refuse_close();`);
    }
  });

  it("opens its own transaction when given the plain client", async () => {
    const change = await createTestChange(project.id);
    const number = await openLinked("plain", change.id);
    expect(await closeIssuesLinkedToChange(await db(), { projectId: project.id, changeId: change.id })).toEqual([
      number,
    ]);
  });
});
