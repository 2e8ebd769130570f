import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { createTestUser } from "@/tests/support/users";
import { db } from "@/server/db";
import { findProjectAlongside } from "@/server/projects";
import { changeWith, createAgentFor, projectWith } from "../test-fixtures";
import { changeFactsAlongside } from "./facts";
import { markMerged, recordMerged, ChangeFinalMeanwhile } from "./land";

useTestEnvironment();

describe("a change's facts read with its project", () => {
  it("equal the client's rows: the change, its workspace, verdicts, evaluation and agent model; null for another project's change", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const other = await projectWith(alice.token, { "README.md": "other\n" });
    const agent = await createAgentFor(alice.token, "model-y");
    const { change, workspace } = await changeWith(agent.token, project, { "a.txt": "a\n" });
    const prisma = await db();
    await prisma.review.createMany({
      data: [
        { changeId: change.id, reviewerId: bob.id, verdict: "approve", baseSha: change.baseSha },
        {
          changeId: change.id,
          reviewerId: alice.id,
          verdict: "request_changes",
          baseSha: change.baseSha,
          dismissedAt: new Date(),
        },
      ],
    });

    const { alongside: facts } = await findProjectAlongside({ id: project.id }, changeFactsAlongside(change.id));
    expect(facts!.change).toEqual(await prisma.change.findUniqueOrThrow({ where: { id: change.id } }));
    expect([facts!.workspace, facts!.evaluationPassed, facts!.reviews, facts!.agentModel]).toEqual([
      workspace,
      true,
      { approvals: 1, countableApprovals: 1, changesRequested: false },
      "model-y",
    ]);
    expect((await findProjectAlongside({ id: other.id }, changeFactsAlongside(change.id))).alongside).toBeNull();
  });
});

describe("recording merges in one statement", () => {
  it("marks the change merged with its provenance and event, and refuses a change merged meanwhile without recording anything", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "b.txt": "b\n" });
    const prisma = await db();
    const row = await prisma.change.findUniqueOrThrow({ where: { id: change.id } });
    const projectRow = await prisma.project.findUniqueOrThrow({ where: { id: project.id } });
    const input = {
      project: projectRow,
      merged: [{ change: row, commit: "c".repeat(40) }],
      mergedById: alice.id,
      strategy: "squash",
      actor: `user:${alice.id}`,
      agentModels: new Map(),
    };
    const counts = async () => [
      await prisma.provenance.count({ where: { changeId: change.id } }),
      await prisma.domainEvent.count({ where: { projectId: project.id, kind: "change.merged" } }),
    ];

    await prisma.$transaction((tx) => recordMerged(tx, input));
    expect(await prisma.change.findUniqueOrThrow({ where: { id: change.id } })).toMatchObject({
      status: "merged",
      mergedSha: "c".repeat(40),
      mergedById: alice.id,
    });
    expect(await counts()).toEqual([1, 1]);

    await expect(prisma.$transaction((tx) => recordMerged(tx, input))).rejects.toBeInstanceOf(ChangeFinalMeanwhile);
    await expect(prisma.$transaction((tx) => markMerged(tx, input))).rejects.toBeInstanceOf(ChangeFinalMeanwhile);
    expect(await counts()).toEqual([1, 1]);
  });
});
