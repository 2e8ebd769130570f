import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { requestDeletion } from "@/server/deletion/service";
import { projectSteps } from "@/server/deletion/steps";
import { createTestProject } from "@/server/projects/test-fixtures";
import { useTestEnvironment } from "@/tests/support/harness";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";

useTestEnvironment();
useTestJobs();

function addStep(run: () => Promise<void>) {
  projectSteps.splice(projectSteps.length - 1, 0, { name: "test-step", run });
}

describe("deletion-job function", () => {
  afterEach(() => {
    const index = projectSteps.findIndex((step) => step.name === "test-step");
    if (index >= 0) projectSteps.splice(index, 1);
  });

  it("runs a requested deletion to completion, retrying an incomplete pass", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "doomed" });
    let failures = 2;
    addStep(async () => {
      if (failures-- > 0) throw new Error("storage busy");
    });
    const { jobId } = await requestDeletion("project", project.id, owner.id);
    await drainJobs({ fastForward: true });
    const prisma = await db();
    expect(await prisma.deletionJob.findUnique({ where: { id: jobId } })).toMatchObject({
      status: "completed",
      attempts: 3,
    });
    expect(await prisma.project.count({ where: { id: project.id } })).toBe(0);
    const [run] = await prisma.jobRun.findMany({ where: { functionId: "svc-forge-deletion-job" } });
    expect(run).toMatchObject({ status: "completed", output: { jobId, status: "completed" } });
  });

  it("leaves the job incomplete after the last attempt", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "stuck" });
    addStep(async () => {
      throw new Error("permission denied");
    });
    const { jobId } = await requestDeletion("project", project.id, owner.id);
    await drainJobs({ fastForward: true, timeoutMs: 30_000 });
    const prisma = await db();
    const job = await prisma.deletionJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(job).toMatchObject({ status: "incomplete", attempts: 6 });
    expect(job.lastError).toMatch(/permission denied/);
    const runs = await prisma.jobRun.findMany({
      where: { functionId: { startsWith: "svc-forge-deletion-job" } },
      orderBy: { createdAt: "asc" },
    });
    expect(runs.map((run) => [run.functionId, run.status])).toContainEqual([
      "svc-forge-deletion-job-failure",
      "completed",
    ]);
  });
});
