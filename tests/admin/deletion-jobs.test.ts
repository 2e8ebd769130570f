import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { pruneJobRows } from "@/server/jobs";
import { JOB_ROWS_RETENTION_DAYS } from "@/server/limits";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment();
useTestJobs();

const ADMIN = { "x-admin-api-key": TEST_ADMIN_KEY };

/** The path and query of a Link header's rel="next", if any. */
function nextPage(link: string | null): string | undefined {
  const next = /<([^>]+)>; rel="next"/.exec(link ?? "")?.[1];
  return next === undefined ? undefined : new URL(next).pathname + new URL(next).search;
}

async function deleteProject(token: string, path: string): Promise<string> {
  const res = await call("DELETE", `/api/projects/${path}`, { token, body: { confirm: path } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.jobId;
}

describe("deletion jobs for administrators", () => {
  it("page newest first by a before cursor (a job id): every job once, an unknown id 404", async () => {
    const owner = await createTestUser();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const project = await createTestProject(owner.token, { name: `paged-${i}` });
      ids.unshift(await deleteProject(owner.token, project.path));
    }
    const seen: string[] = [];
    let url: string | undefined = "/api/admin/deletion-jobs?limit=2";
    while (url) {
      const res = await call("GET", url, { headers: ADMIN });
      expect(res.status).toBe(200);
      seen.push(...res.body.jobs.map((job: { id: string }) => job.id));
      url = nextPage(res.headers.get("link"));
    }
    expect(seen.filter((id) => ids.includes(id))).toEqual(ids);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await call("GET", "/api/admin/deletion-jobs?before=nope", { headers: ADMIN })).status).toBe(404);
  });

  it("lists jobs with their status and filters by it", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "doomed" });
    const jobId = await deleteProject(owner.token, project.path);
    const running = await call("GET", "/api/admin/deletion-jobs?status=deleting", { headers: ADMIN });
    expect(running.status).toBe(200);
    expect(running.body.jobs.find((job: { id: string }) => job.id === jobId)).toMatchObject({
      kind: "project",
      targetId: project.id,
      status: "deleting",
      attempts: 0,
      error: null,
      step: null,
    });
    await drainJobs();
    const done = await call("GET", "/api/admin/deletion-jobs?status=completed", { headers: ADMIN });
    expect(done.body.jobs.find((job: { id: string }) => job.id === jobId)).toMatchObject({
      status: "completed",
      attempts: 1,
    });
    expect((await call("GET", "/api/admin/deletion-jobs?status=deleting", { headers: ADMIN })).body.jobs).toEqual([]);
    expect((await call("GET", "/api/admin/deletion-jobs?status=stuck", { headers: ADMIN })).status).toBe(400);
  });

  it("redrives a failed job, refuses a completed or running one with 409 NOT_REDRIVABLE, 404 for an unknown id", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "stuck" });
    const jobId = await deleteProject(owner.token, project.path);
    // Still queued: a live run exists.
    const live = await call("POST", `/api/admin/deletion-jobs/${jobId}/redrive`, { headers: ADMIN });
    expect(live.status).toBe(409);
    expect(live.body.code).toBe("NOT_REDRIVABLE");
    await drainJobs();
    const prisma = await db();
    await prisma.deletionJob.update({
      where: { id: jobId },
      data: { status: "incomplete", lastError: "repos: disk full", stepsDone: { set: [] } },
    });
    const listed = await call("GET", "/api/admin/deletion-jobs?status=failed", { headers: ADMIN });
    expect(listed.body.jobs.find((job: { id: string }) => job.id === jobId)).toMatchObject({
      status: "failed",
      error: "repos: disk full",
    });

    const redriven = await call("POST", `/api/admin/deletion-jobs/${jobId}/redrive`, { headers: ADMIN });
    expect(redriven.status).toBe(202);
    expect(redriven.body).toEqual({ status: "deleting", jobId });
    await drainJobs();
    expect(await prisma.deletionJob.findUniqueOrThrow({ where: { id: jobId } })).toMatchObject({
      status: "completed",
      attempts: 2,
    });

    const again = await call("POST", `/api/admin/deletion-jobs/${jobId}/redrive`, { headers: ADMIN });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("NOT_REDRIVABLE");
    expect((await call("POST", "/api/admin/deletion-jobs/del_missing/redrive", { headers: ADMIN })).status).toBe(404);
  });

  it("redrives a stalled job (deleting with no live run)", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "stalled" });
    const jobId = await deleteProject(owner.token, project.path);
    const prisma = await db();
    // The event was taken but its run is gone (cancelled by hand): nothing will run the job.
    await prisma.jobEvent.updateMany({ where: { processedAt: null }, data: { processedAt: new Date() } });
    await prisma.jobRun.updateMany({ where: { status: "queued" }, data: { status: "cancelled", endedAt: new Date() } });
    const redriven = await call("POST", `/api/admin/deletion-jobs/${jobId}/redrive`, { headers: ADMIN });
    expect(redriven.status).toBe(202);
    await drainJobs();
    expect((await prisma.deletionJob.findUniqueOrThrow({ where: { id: jobId } })).status).toBe("completed");
  });

  it("is for administrators only", async () => {
    const user = await createTestUser();
    expect((await call("GET", "/api/admin/deletion-jobs", { token: user.token })).status).toBe(403);
    expect((await call("POST", "/api/admin/deletion-jobs/del_x/redrive")).status).toBe(401);
  });
});

describe("pruning job rows", () => {
  it("deletes ended runs and processed events past the retention, keeps the rest", async () => {
    const prisma = await db();
    const old = new Date(Date.now() - (JOB_ROWS_RETENTION_DAYS + 1) * 86_400_000);
    const event = { name: "svc/test", data: {} };
    const base = { functionId: "svc-forge-test", event, maxAttempts: 1, availableAt: old };
    await prisma.jobRun.create({
      data: {
        ...base,
        id: "run_old_done",
        status: "completed",
        endedAt: old,
        steps: { create: { stepId: "s", name: "s", type: "data", data: 1 } },
      },
    });
    await prisma.jobRun.create({ data: { ...base, id: "run_old_queued", status: "queued" } });
    await prisma.jobRun.create({ data: { ...base, id: "run_new_done", status: "failed", endedAt: new Date() } });
    await prisma.jobEvent.create({
      data: { id: "ev_old", name: "svc/test", ts: BigInt(old.getTime()), processedAt: old },
    });
    await prisma.jobEvent.create({ data: { id: "ev_pending", name: "svc/test", ts: BigInt(old.getTime()) } });

    const pruned = await pruneJobRows();
    expect(pruned.runs).toBeGreaterThanOrEqual(1);
    const ids = (await prisma.jobRun.findMany({ where: { id: { startsWith: "run_" } } })).map((run) => run.id).sort();
    expect(ids).toEqual(["run_new_done", "run_old_queued"]);
    expect(await prisma.jobStep.count({ where: { runId: "run_old_done" } })).toBe(0);
    expect((await prisma.jobEvent.findMany({ where: { id: { startsWith: "ev_" } } })).map((e) => e.id)).toEqual([
      "ev_pending",
    ]);
  });
});
