import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { createTestUser } from "@/tests/support/users";
import { db } from "@/server/db";
import { findProjectAlongside } from "@/server/projects";
import { changeWith, createAgentFor, projectWith } from "../test-fixtures";
import { queueHeadAlongside } from "./head";

useTestEnvironment();

// A turn reads the head of the queue in one statement that builds the rows from JSON: they must be the client's.
describe("the head of a project's queue in one read", () => {
  it("gives the entries in order with their changes as the client reads them, names, verdicts, evaluation and agent model", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const agent = await createAgentFor(alice.token, "model-x");
    const first = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const second = await changeWith(agent.token, project, { "b.txt": "b\n" });
    const prisma = await db();
    // Entries as queueing makes them, without waking the queue (which would land them meanwhile).
    for (const { change } of [second, first])
      await prisma.queueEntry.create({
        data: {
          projectId: project.id,
          changeId: change.id,
          tipSha: change.tipSha,
          strategy: "squash",
          enqueuedById: alice.id,
        },
      });
    await prisma.review.createMany({
      data: [
        { changeId: first.change.id, reviewerId: bob.id, verdict: "approve", baseSha: first.change.baseSha },
        { changeId: first.change.id, reviewerId: alice.id, verdict: "approve", baseSha: first.change.baseSha },
        {
          changeId: second.change.id,
          reviewerId: bob.id,
          verdict: "request_changes",
          baseSha: second.change.baseSha,
          dismissedAt: new Date(),
        },
      ],
    });
    await prisma.evaluation.update({ where: { changeId: second.change.id }, data: { verdict: "failed" } });

    const { project: row, alongside: head } = await findProjectAlongside({ id: project.id }, queueHeadAlongside(10));
    expect(row).toEqual(await prisma.project.findUniqueOrThrow({ where: { id: project.id } }));
    const entries = await prisma.queueEntry.findMany({
      where: { projectId: project.id },
      orderBy: { seq: "asc" },
      include: { change: true },
    });
    expect(
      head!.map(
        ({ change, workspace: _w, evaluationPassed: _e, reviews: _r, enqueuer: _q, agentModel: _m, ...entry }) => ({
          ...entry,
          change,
        }),
      ),
    ).toEqual(entries);
    expect(
      head!.map((entry) => [entry.workspace, entry.evaluationPassed, entry.reviews, entry.enqueuer, entry.agentModel]),
    ).toEqual([
      [
        second.workspace,
        false,
        { approvals: 0, countableApprovals: 0, changesRequested: false },
        alice.username,
        "model-x",
      ],
      [first.workspace, true, { approvals: 2, countableApprovals: 1, changesRequested: false }, alice.username, null],
    ]);
    expect(
      (await findProjectAlongside({ id: project.id }, queueHeadAlongside(1))).alongside!.map((entry) => entry.changeId),
    ).toEqual([second.change.id]);
  });
});
