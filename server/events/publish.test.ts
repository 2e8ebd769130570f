import { describe, expect, it } from "vitest";
import { outboxSweep } from "@/inngest/functions/outbox-sweep";
import { db } from "@/server/db/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { advanceJobClock, drainJobs, useTestJobs } from "@/tests/support/jobs";
import { recordEvent } from "./record";
import { DOMAIN_EVENT, publishAfterCommit, publishPendingEvents } from "./publish";

useTestEnvironment();
const jobs = useTestJobs({ functions: [outboxSweep] });

/** Outbox rows nobody has sent yet: recorded under Inngest (sent after the commit) or left from before a crash. */
async function leaveUndispatched(count: number) {
  const prisma = await db();
  const rows = [];
  for (let i = 0; i < count; i++) {
    rows.push(
      await prisma.domainEvent.create({
        data: {
          projectId: null,
          kind: "issue.opened",
          actor: "system",
          data: { i, ...(i === 1 ? { workspace: "ws-1" } : {}) },
        },
        select: { id: true },
      }),
    );
  }
  return rows;
}

const sentEvents = async () =>
  (await db()).jobEvent.findMany({ where: { name: DOMAIN_EVENT }, orderBy: { seq: "asc" } });

describe("outbox publishing", () => {
  it("sends one svc/domain.event per undispatched row, in order, and marks them", async () => {
    const rows = await leaveUndispatched(3);
    expect(await publishPendingEvents()).toBe(3);
    const sent = await sentEvents();
    // The workspace an event names is carried as a string, "" when it names none.
    expect(sent.map((event) => event.data)).toEqual(
      rows.map((row, i) => ({
        eventId: row.id,
        projectId: null,
        kind: "issue.opened",
        workspace: i === 1 ? "ws-1" : "",
        webhooks: false,
        promotedChanges: false,
      })),
    );
    const prisma = await db();
    expect(await prisma.domainEvent.count({ where: { dispatchedAt: null } })).toBe(0);
    expect(await publishPendingEvents()).toBe(0);
  });

  it("never sends a row twice when publishers run concurrently", async () => {
    const before = (await sentEvents()).length;
    await leaveUndispatched(150);
    await Promise.all([publishPendingEvents(), publishPendingEvents(), publishAfterCommit(), publishPendingEvents()]);
    const sent = await sentEvents();
    expect(sent).toHaveLength(before + 150);
    expect(new Set(sent.map((event) => (event.data as { eventId: string }).eventId)).size).toBe(before + 150);
    expect(await (await db()).domainEvent.count({ where: { dispatchedAt: null } })).toBe(0);
  });

  it("deduplicates a re-send of rows sent but not marked (crash between the two)", async () => {
    const prisma = await db();
    const before = (await sentEvents()).length;
    await prisma.domainEvent.updateMany({ data: { dispatchedAt: null } });
    expect(await publishPendingEvents()).toBeGreaterThan(0);
    expect(await sentEvents()).toHaveLength(before);
  });

  it("events are stored for the executor in the statement that records them, in a transaction or not: nothing is left to publish", async () => {
    const prisma = await db();
    const before = (await sentEvents()).length;
    const alone = await recordEvent(prisma, {
      projectId: null,
      kind: "issue.opened",
      actor: "system",
      data: { workspace: "ws-2" },
    });
    const inTransaction = await prisma.$transaction(async (tx) =>
      recordEvent(tx, { projectId: null, kind: "issue.opened", actor: "system", data: { tx: 1 } }),
    );
    const sent = await sentEvents();
    expect(sent.slice(before).map((event) => [event.id, event.data])).toEqual([
      [
        `domain-${alone.id}`,
        {
          eventId: alone.id,
          projectId: null,
          kind: "issue.opened",
          workspace: "ws-2",
          webhooks: false,
          promotedChanges: false,
        },
      ],
      [
        `domain-${inTransaction.id}`,
        {
          eventId: inTransaction.id,
          projectId: null,
          kind: "issue.opened",
          workspace: "",
          webhooks: false,
          promotedChanges: false,
        },
      ],
    ]);
    expect(await prisma.domainEvent.count({ where: { dispatchedAt: null } })).toBe(0);
    expect(await publishPendingEvents()).toBe(0);

    await expect(
      prisma.$transaction(async (tx) => {
        await recordEvent(tx, { projectId: null, kind: "issue.opened", actor: "system", data: { tx: 2 } });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await sentEvents()).toHaveLength(before + 2);
  });

  it("the five-minute sweep publishes stragglers", async () => {
    const prisma = await db();
    // The next tick five minutes from the test clock's now, so a real-time tick boundary the run
    // happens to cross cannot publish the rows early.
    await prisma.jobSchedule.update({
      where: { functionId: "svc-forge-event-outbox-sweep" },
      data: { nextAt: new Date(jobs.current.clock.now() + 5 * 60_000) },
    });
    await leaveUndispatched(2);
    await drainJobs();
    expect(await prisma.domainEvent.count({ where: { dispatchedAt: null } })).toBe(2);
    advanceJobClock(5 * 60_000);
    await drainJobs();
    expect(await prisma.domainEvent.count({ where: { dispatchedAt: null } })).toBe(0);
    const [sweep] = await prisma.jobRun.findMany({ where: { functionId: "svc-forge-event-outbox-sweep" } });
    expect(sweep).toMatchObject({ status: "completed", output: { published: 2 } });
  });
});
