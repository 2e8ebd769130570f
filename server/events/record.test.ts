import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { useTestEnvironment } from "@/tests/support/harness";
import { recordEventsAlongside, trackRecordedEvents, whenRequestEnds } from "./record";

useTestEnvironment();

// A write of the test's own: a table no area owns, so nothing else reads or hooks it.
const NOTE_CTES = `noted AS (INSERT INTO "RecordProbe" ("note") SELECT * FROM jsonb_array_elements_text($1::jsonb))`;
const notes = async () =>
  (await (await db()).$queryRawUnsafe<Array<{ note: string }>>(`SELECT "note" FROM "RecordProbe" ORDER BY "note"`)).map(
    (row) => row.note,
  );
const eventsOf = async (kind: string) =>
  (await db()).domainEvent.findMany({ where: { kind }, orderBy: { seq: "asc" } });

describe("recording events alongside the write they describe", () => {
  it("writes both in one statement, with the events' job events, or neither", async () => {
    const prisma = await db();
    await prisma.$executeRawUnsafe(`CREATE TABLE "RecordProbe" ("note" text PRIMARY KEY)`);
    const [recorded] = await recordEventsAlongside({ ctes: NOTE_CTES, params: [JSON.stringify(["a", "b"])] }, [
      { projectId: null, kind: "issue.opened", actor: "system", data: { n: 1 } },
    ]);
    expect(await notes()).toEqual(["a", "b"]);
    const [event] = await eventsOf("issue.opened");
    expect(event).toMatchObject({ id: recorded.id, seq: recorded.seq, data: { n: 1 } });
    expect(event.dispatchedAt).not.toBeNull();
    expect(await prisma.jobEvent.count({ where: { data: { path: ["eventId"], equals: recorded.id } } })).toBe(1);

    // The write fails (a duplicate key): no event either.
    const failed = recordEventsAlongside({ ctes: NOTE_CTES, params: [JSON.stringify(["c", "a"])] }, [
      { projectId: null, kind: "issue.opened", actor: "system", data: { n: 2 } },
    ]);
    await expect(failed).rejects.toThrow();
    expect(await notes()).toEqual(["a", "b"]);
    expect(await eventsOf("issue.opened")).toHaveLength(1);
  });
});

describe("whenRequestEnds", () => {
  it("runs a task when the request ends, and at once for work that outlives its request", async () => {
    const ran: string[] = [];
    let outliving: Promise<void> | undefined;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await trackRecordedEvents(async () => {
      whenRequestEnds(() => ran.push("during"));
      // Started by the request, going on after it (as the merge queue's run does).
      outliving = released.then(() => whenRequestEnds(() => ran.push("after")));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["during"]);
    release();
    await outliving;
    expect(ran).toEqual(["during", "after"]);
  });
});
