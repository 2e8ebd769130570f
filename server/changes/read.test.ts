import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { createTestUser } from "@/tests/support/users";
import { db } from "@/server/db";
import { changeWith, merge, projectWith } from "./test-fixtures";
import { latestTransition, transitionsOf } from "@/server/events";
import { readChangeAndLatestTransition, readChangeAndTransitions, readChangeState } from "./read";

useTestEnvironment();

// The one-statement read builds the rows itself from JSON: they must be the rows the client reads.
describe("a change's state in one read", () => {
  it("gives the change, its evaluation and runs exactly as the client reads them, with names and queue", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change, workspace } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const prisma = await db();
    // Every timestamp column set, one of them on a whole second (JSON drops its fraction).
    await prisma.change.update({
      where: { id: change.id },
      data: { rejectedAt: new Date("2026-01-02T03:04:05.000Z"), revertedAt: new Date("2026-01-02T03:04:05.120Z") },
    });
    // An entry as queueing makes it, without waking the queue (which would land the change meanwhile).
    await prisma.queueEntry.create({
      data: {
        projectId: project.id,
        changeId: change.id,
        tipSha: change.tipSha,
        strategy: "merge",
        enqueuedById: alice.id,
      },
    });

    const state = await readChangeState(change.id);
    expect(state).not.toBeNull();
    expect(state!.change).toEqual(await prisma.change.findUniqueOrThrow({ where: { id: change.id } }));
    expect(state!.evaluation).toEqual(await prisma.evaluation.findUnique({ where: { changeId: change.id } }));
    expect(state!.runs).toEqual(
      await prisma.evalRun.findMany({
        where: { changeId: change.id },
        orderBy: [{ round: "asc" }, { createdAt: "asc" }],
      }),
    );
    expect(state!.runs.length).toBeGreaterThan(0);
    expect(state!.workspace).toBe(workspace);
    expect(state!.author).toBe(alice.username);
    const entry = await prisma.queueEntry.findUniqueOrThrow({ where: { changeId: change.id } });
    expect(state!.queue).toEqual({ position: 1, state: entry.state, enqueuedAt: entry.enqueuedAt.toISOString() });

    expect(await readChangeState("00000000-0000-4000-8000-000000000000")).toBeNull();
  });

  it("shows a merged change merged and out of the queue, and a change whose author is gone without a name", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "b.txt": "b\n" });
    expect((await merge(alice.token, change.id)).status).toBe(200);
    const merged = await readChangeState(change.id);
    expect(merged!.change).toEqual(await (await db()).change.findUniqueOrThrow({ where: { id: change.id } }));
    expect(merged!.change.mergedAt).toBeInstanceOf(Date);
    expect(merged!.queue).toBeNull();

    await (await db()).change.update({ where: { id: change.id }, data: { authorId: null } });
    expect((await readChangeState(change.id))!.author).toBeNull();
  });

  it("reads the change's transitions after a cursor with its state, as the outbox lists them", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "c.txt": "c\n" });
    const all = await transitionsOf(change);
    expect(all.map((t) => t.kind)).toEqual(["change.evaluated"]);
    expect((await readChangeAndTransitions(change.id, 0n))!.transitions).toEqual(all);

    expect((await merge(alice.token, change.id)).status).toBe(200);
    const after = await readChangeAndTransitions(change.id, all[0].seq);
    expect(after!.transitions).toEqual(await transitionsOf(change, all[0].seq));
    expect(after!.transitions.map((t) => t.kind)).toEqual(["change.merged"]);
    expect(after!.state).toEqual(await readChangeState(change.id));
    expect((await readChangeAndTransitions(change.id, after!.transitions[0].seq))!.transitions).toEqual([]);
    expect(await readChangeAndTransitions("00000000-0000-4000-8000-000000000000", 0n)).toBeNull();
  });

  it("reads the change's latest transition with its state, past newer events of other changes", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change: first } = await changeWith(alice.token, project, { "d.txt": "d\n" });
    const { change: second } = await changeWith(alice.token, project, { "e.txt": "e\n" });
    expect((await merge(alice.token, first.id)).status).toBe(200);

    for (const change of [first, second]) {
      const read = await readChangeAndLatestTransition(change.id);
      expect(read!.latest).toEqual((await transitionsOf(change)).at(-1));
      expect(read!.latest).toEqual(await latestTransition(change));
      expect(read!.state).toEqual(await readChangeState(change.id));
    }
    expect((await readChangeAndLatestTransition(second.id))!.latest!.kind).toBe("change.evaluated");
    expect(await readChangeAndLatestTransition("00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});
