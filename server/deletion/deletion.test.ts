import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestSession } from "@/tests/support/sessions";
import { createTestUser } from "@/tests/support/users";
import { db } from "@/server/db/client";
import { recordEvent } from "@/server/events/record";
import { createTestOrg, createTestProject, grantCollaborator } from "@/server/projects/test-fixtures";
import { requestDeletion, runDeletionJob } from "./service";
import { projectSteps } from "./steps";

const env = useTestEnvironment();
useTestJobs();

/** One row in every per-project table, attributed to `authorId`. */
async function seedProjectData(projectId: string, authorId: string) {
  const prisma = await db();
  const workspace = await prisma.workspace.findFirstOrThrow({ where: { projectId } });
  const sha = "a".repeat(40);
  const change = await prisma.change.create({
    data: { projectId, workspaceId: workspace.id, number: 1, status: "accepted", authorId, baseSha: sha, tipSha: sha },
  });
  await prisma.evaluation.create({
    data: { changeId: change.id, verdict: "passed", baseSha: sha, tipSha: sha, summary: "ok" },
  });
  await prisma.evalRun.create({
    data: { changeId: change.id, evaluator: "secret-scan", status: "passed", durationMs: 1, baseSha: sha, tipSha: sha },
  });
  await prisma.review.create({ data: { changeId: change.id, reviewerId: authorId, verdict: "approve", baseSha: sha } });
  await prisma.changeComment.create({ data: { changeId: change.id, authorId, body: "nice" } });
  await prisma.conflict.create({
    data: { projectId, changeId: change.id, baseSha: sha, headSha: sha, tipSha: sha, files: ["a"] },
  });
  await prisma.provenance.create({ data: { projectId, changeId: change.id, commitSha: sha, authorId } });
  const issue = await prisma.issue.create({
    data: { projectId, number: 1, title: "t", authorId, assigneeId: authorId },
  });
  await prisma.issueComment.create({ data: { issueId: issue.id, authorId, body: "c" } });
  const event = await recordEvent(prisma, { projectId, kind: "change.created", actor: `user:${authorId}` });
  const webhook = await prisma.webhook.create({
    data: { projectId, url: "http://127.0.0.1:1/hook", sealedSecret: "v1.x.y.z" },
  });
  await prisma.webhookDelivery.create({
    data: { webhookId: webhook.id, eventId: event.id, deliveryId: "d", attempt: 1, durationMs: 1, succeeded: true },
  });
  return { change, issue, webhook };
}

async function projectRowCounts(projectId: string) {
  const prisma = await db();
  const changeIds = (await prisma.change.findMany({ where: { projectId } })).map((c) => c.id);
  return {
    project: await prisma.project.count({ where: { id: projectId } }),
    workspaces: await prisma.workspace.count({ where: { projectId } }),
    changes: changeIds.length,
    evaluations: await prisma.evaluation.count({ where: { changeId: { in: changeIds } } }),
    conflicts: await prisma.conflict.count({ where: { projectId } }),
    provenance: await prisma.provenance.count({ where: { projectId } }),
    issues: await prisma.issue.count({ where: { projectId } }),
    events: await prisma.domainEvent.count({ where: { projectId } }),
    webhooks: await prisma.webhook.count({ where: { projectId } }),
    collaborators: await prisma.projectCollaborator.count({ where: { projectId } }),
  };
}

describe("project deletion job", () => {
  afterEach(() => {
    const flaky = projectSteps.findIndex((step) => step.name === "flaky");
    if (flaky >= 0) projectSteps.splice(flaky, 1);
  });

  it("removes the repository, forks and every per-project row; a re-run is a no-op", async () => {
    const owner = await createTestUser();
    const helper = await createTestUser();
    const project = await createTestProject(owner.token, { name: "gone" });
    await grantCollaborator(project.id, helper.id, "write");
    expect(
      (
        await call("POST", `/api/workspaces/@${owner.username}/gone/workspaces`, {
          token: owner.token,
          body: { name: "w" },
        })
      ).status,
    ).toBe(201);
    const { change, issue, webhook } = await seedProjectData(project.id, helper.id);
    // A run's log, where the runners keep it.
    fs.mkdirSync(path.join(env.dataDir, "runs", project.id), { recursive: true });
    fs.writeFileSync(path.join(env.dataDir, "runs", project.id, "run.log"), "output\n");
    const { jobId } = await requestDeletion("project", project.id, owner.id);
    expect(await runDeletionJob(jobId)).toBe("completed");
    expect(fs.existsSync(path.join(env.dataDir, "runs", project.id))).toBe(false);
    const counts = await projectRowCounts(project.id);
    expect(
      Object.values(counts).every((n) => n === 0),
      JSON.stringify(counts),
    ).toBe(true);
    const prisma = await db();
    expect(await prisma.review.count({ where: { changeId: change.id } })).toBe(0);
    expect(await prisma.changeComment.count({ where: { changeId: change.id } })).toBe(0);
    expect(await prisma.evalRun.count({ where: { changeId: change.id } })).toBe(0);
    expect(await prisma.issueComment.count({ where: { issueId: issue.id } })).toBe(0);
    expect(await prisma.webhookDelivery.count({ where: { webhookId: webhook.id } })).toBe(0);
    expect(fs.existsSync(path.join(env.dataDir, "repos", project.id))).toBe(false);
    const job = await prisma.deletionJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(job).toMatchObject({
      kind: "project",
      targetId: project.id,
      status: "completed",
      stepsDone: projectSteps.map((s) => s.name),
    });
    expect(await runDeletionJob(jobId)).toBe("completed");
    // the name is free again
    await createTestProject(owner.token, { name: "gone" });
  });

  it("a failing step leaves the job incomplete; running it again resumes after the finished steps", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "flaky" });
    let failures = 1;
    let runs = 0;
    projectSteps.splice(1, 0, {
      name: "flaky",
      run: async () => {
        runs++;
        if (failures-- > 0) throw new Error("disk on fire");
      },
    });
    const { jobId } = await requestDeletion("project", project.id, owner.id);
    expect(await runDeletionJob(jobId)).toBe("incomplete");
    const prisma = await db();
    const stalled = await prisma.deletionJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(stalled.status).toBe("incomplete");
    expect(stalled.lastError).toContain("disk on fire");
    expect(stalled.stepsDone).toContain("project");
    expect(stalled.stepsDone).not.toContain("repositories");
    // still in flight: a repeated request answers the same job
    expect((await requestDeletion("project", project.id, owner.id)).jobId).toBe(jobId);
    expect(await runDeletionJob(jobId)).toBe("completed");
    expect(runs).toBe(2);
    expect(await prisma.project.count({ where: { id: project.id } })).toBe(0);
    expect(fs.existsSync(path.join(env.dataDir, "repos", project.id))).toBe(false);
  });

  it("an accepted DELETE runs to completion through the job executor", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "queued" });
    const res = await call("DELETE", `/api/projects/@${owner.username}/queued`, {
      token: owner.token,
      body: { confirm: project.path },
    });
    expect(res.status).toBe(202);
    await drainJobs();
    const job = await (await db()).deletionJob.findUniqueOrThrow({ where: { id: res.body.jobId } });
    expect(job.status).toBe("completed");
    expect((await call("GET", `/api/projects/@${owner.username}/queued`, { token: owner.token })).status).toBe(404);
  });

  it("an agent of the owner cannot delete the project (401), on either route", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "kept" });
    const agent = await call("POST", "/api/agents", { token: owner.token, body: { name: "bot" } });
    const byDelete = await call("DELETE", `/api/projects/@${owner.username}/kept`, {
      token: agent.body.token,
      body: { confirm: project.path },
    });
    const byForm = await call("POST", `/api/projects/@${owner.username}/kept/delete`, {
      token: agent.body.token,
      body: { confirm: project.path },
    });
    expect([byDelete.status, byForm.status]).toEqual([401, 401]);
    expect(await (await db()).deletionJob.count({ where: { targetId: project.id } })).toBe(0);
    expect((await call("GET", `/api/projects/@${owner.username}/kept`, { token: agent.body.token })).status).toBe(200);
  });

  it("concurrent requests for one project share one job", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "twice" });
    const jobs = await Promise.all([1, 2, 3].map(() => requestDeletion("project", project.id, owner.id)));
    expect(new Set(jobs.map((j) => j.jobId)).size).toBe(1);
    expect(await (await db()).deletionJob.count({ where: { targetId: project.id } })).toBe(1);
  });
});

describe("DELETE /api/users/me", () => {
  it("400 on a confirm mismatch; 401 for agents and anonymous callers", async () => {
    const alice = await createTestUser();
    const agent = await call("POST", "/api/agents", { token: alice.token, body: { name: "bot" } });
    expect(
      (await call("DELETE", "/api/users/me", { token: alice.token, body: { confirm: "someone-else" } })).status,
    ).toBe(400);
    expect((await call("DELETE", "/api/users/me", { token: alice.token, body: {} })).status).toBe(400);
    expect(
      (await call("DELETE", "/api/users/me", { token: agent.body.token, body: { confirm: alice.username } })).status,
    ).toBe(401);
    expect((await call("DELETE", "/api/users/me", { body: { confirm: alice.username } })).status).toBe(401);
    expect((await call("GET", "/api/users/me", { token: alice.token })).status).toBe(200);
  });

  it("invalidates credentials at once; the job deletes owned projects and anonymizes contributions", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const carol = await createTestUser();
    const session = await createTestSession(alice.username);
    const agent = await call("POST", "/api/agents", { token: alice.token, body: { name: "bot" } });
    const own = await createTestProject(alice.token, { name: "own" });
    const theirs = await createTestProject(bob.token, { name: "theirs" });
    await grantCollaborator(theirs.id, alice.id, "write");
    await grantCollaborator(own.id, bob.id, "write");
    expect(
      (
        await call("POST", `/api/workspaces/@${bob.username}/theirs/workspaces`, {
          token: alice.token,
          body: { name: "aw" },
        })
      ).status,
    ).toBe(201);
    const { change, issue } = await seedProjectData(theirs.id, alice.id);
    const org = await createTestOrg(`org${Date.now()}`, [
      { userId: alice.id, role: "owner" },
      { userId: carol.id, role: "admin" },
    ]);

    const res = await call("DELETE", "/api/users/me", { token: alice.token, body: { confirm: alice.username } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: "deleting", jobId: expect.stringMatching(/^del_/) });
    expect((await call("GET", "/api/users/me", { token: alice.token })).status).toBe(401);
    expect((await call("GET", "/api/agents", { token: agent.body.token })).status).toBe(401);
    expect((await call("GET", "/api/users/me", { cookie: session.cookie })).status).toBe(401);
    // writes racing the owner's deletion are refused
    const racing = await call("POST", `/api/workspaces/@${alice.username}/own/workspaces`, {
      token: bob.token,
      body: {},
    });
    expect(racing).toMatchObject({ status: 409, body: { code: "TARGET_DELETING" } });

    expect(await runDeletionJob(res.body.jobId)).toBe("completed");
    const prisma = await db();
    expect(await prisma.user.count({ where: { id: alice.id } })).toBe(0);
    expect(await prisma.agent.count({ where: { ownerId: alice.id } })).toBe(0);
    expect(await prisma.project.count({ where: { id: own.id } })).toBe(0);
    expect(fs.existsSync(path.join(env.dataDir, "repos", own.id))).toBe(false);
    const tombstone = await prisma.user.findFirstOrThrow({ where: { isTombstone: true } });
    expect((await prisma.change.findUniqueOrThrow({ where: { id: change.id } })).authorId).toBe(tombstone.id);
    expect((await prisma.issue.findUniqueOrThrow({ where: { id: issue.id } })).authorId).toBe(tombstone.id);
    expect((await prisma.issue.findUniqueOrThrow({ where: { id: issue.id } })).assigneeId).toBeNull();
    expect((await prisma.review.findFirstOrThrow({ where: { changeId: change.id } })).reviewerId).toBe(tombstone.id);
    expect((await prisma.changeComment.findFirstOrThrow({ where: { changeId: change.id } })).authorId).toBe(
      tombstone.id,
    );
    expect((await prisma.issueComment.findFirstOrThrow({ where: { issueId: issue.id } })).authorId).toBe(tombstone.id);
    expect(await prisma.domainEvent.count({ where: { actor: `user:${alice.id}` } })).toBe(0);
    expect(
      (await prisma.orgMember.findUniqueOrThrow({ where: { orgId_userId: { orgId: org.id, userId: carol.id } } })).role,
    ).toBe("owner");
    // the other owner's project and its history survive
    expect((await call("GET", `/api/projects/@${bob.username}/theirs`, { token: bob.token })).status).toBe(200);
    expect(
      (await call("GET", `/api/workspaces/@${bob.username}/theirs/workspaces`, { token: bob.token })).body
        .workspaces[0],
    ).toMatchObject({ name: "aw", createdById: tombstone.id });
  });
});
