import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { createAgentFor } from "@/server/changes/test-fixtures";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { deploymentRows, getDeployment, mergeChange, projectDeploying } from "./support";

useTestEnvironment({ ALLOW_PRIVATE_TARGETS: "1" });
useTestJobs();

type TestUser = Awaited<ReturnType<typeof createTestUser>>;
let owner: TestUser;
let writer: TestUser;
let reader: TestUser;
let stranger: TestUser;
let agent: { id: string; token: string };
let project: Awaited<ReturnType<typeof projectDeploying>>;
let publicProject: Awaited<ReturnType<typeof projectDeploying>>;

// Nothing listens there: deployments that run fail, which is all these tests need of the provider.
const DEAD_URL = "http://127.0.0.1:9/hook";

beforeAll(async () => {
  [owner, writer, reader, stranger] = [
    await createTestUser(),
    await createTestUser(),
    await createTestUser(),
    await createTestUser(),
  ];
  agent = await createAgentFor(owner.token);
  project = await projectDeploying(
    owner.token,
    { name: "production", provider: "webhook", url: DEAD_URL, requireApproval: true },
    { name: "preview", provider: "webhook", url: DEAD_URL },
  );
  publicProject = await projectDeploying(owner.token, { name: "production", provider: "webhook", url: DEAD_URL });
  await (await db()).project.update({ where: { id: publicProject.id }, data: { visibility: "public" } });
  for (const id of [project.id, publicProject.id]) {
    await grantCollaborator(id, writer.id, "write");
    await grantCollaborator(id, reader.id, "read");
  }
});

const approve = (token: string | undefined, id: string) => call("POST", `/api/deployments/${id}/approve`, { token });
const retry = (token: string | undefined, id: string) => call("POST", `/api/deployments/${id}/retry`, { token });
const list = (token: string | undefined, query = "", base = project.path) =>
  call("GET", `/api/projects/${base}/deployments${query}`, { token });

async function pendingDeployment() {
  await mergeChange(owner.token, project);
  const rows = await deploymentRows(project.id);
  return rows.filter((row) => row.name === "production" && row.status === "pending_approval").at(-1)!;
}

describe("GET deployments", () => {
  it("lists newest first with the filtered total, logTail only for writers", async () => {
    await mergeChange(owner.token, project);
    await mergeChange(owner.token, project);
    await drainJobs({ timeoutMs: 60_000 });
    const all = await list(writer.token);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(await (await db()).deployment.count({ where: { projectId: project.id } }));
    const times = all.body.deployments.map((d: { createdAt: string }) => d.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.body.deployments[0]).toHaveProperty("logTail");
    expect(all.body.deployments[0].project).toEqual({ id: project.id, path: project.path });

    const page = await list(writer.token, "?name=production&limit=1&offset=1");
    expect(page.body.deployments).toHaveLength(1);
    expect(page.body.total).toBe(all.body.deployments.filter((d: { name: string }) => d.name === "production").length);
    const failed = await list(reader.token, "?status=failed");
    expect(failed.body.deployments.length).toBeGreaterThan(0);
    for (const deployment of failed.body.deployments) {
      expect(deployment.status).toBe("failed");
      expect(deployment).not.toHaveProperty("logTail");
      expect(deployment.error).toContain("deploy webhook call failed");
    }
  });

  it("refuses an unknown status, a bad limit (400) and hides private projects (404); public ones are readable anonymously", async () => {
    expect((await list(writer.token, "?status=done")).status).toBe(400);
    expect((await list(writer.token, "?limit=201")).status).toBe(400);
    expect((await list(writer.token, "?limit=0")).status).toBe(400);
    expect((await list(stranger.token)).status).toBe(404);
    expect((await list(undefined)).status).toBe(404);
    await mergeChange(owner.token, publicProject);
    const anonymous = await list(undefined, "", publicProject.path);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.total).toBeGreaterThan(0);
    expect(anonymous.body.deployments[0]).not.toHaveProperty("logTail");
    expect((await getDeployment(undefined, anonymous.body.deployments[0].id)).status).toBe(200);
  });

  it("GET /api/deployments/{id}: 404 for a project the caller cannot read and for unknown ids", async () => {
    const row = await pendingDeployment();
    expect((await getDeployment(stranger.token, row.id)).status).toBe(404);
    expect((await getDeployment(undefined, row.id)).status).toBe(404);
    expect((await getDeployment(owner.token, "00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await getDeployment(owner.token, "not-a-uuid")).status).toBe(404);
    const seen = await getDeployment(reader.token, row.id);
    expect(seen.body.deployment).toMatchObject({ id: row.id, status: "pending_approval", attempt: 1 });
    expect(seen.body.deployment).not.toHaveProperty("logTail");
  });
});

describe("POST /api/deployments/{id}/approve", () => {
  it("is for users with write access: 401 anonymous or agent, 403 reader, 404 stranger", async () => {
    const row = await pendingDeployment();
    expect((await approve(undefined, row.id)).status).toBe(401);
    expect((await approve(agent.token, row.id)).status).toBe(401);
    expect((await approve(reader.token, row.id)).status).toBe(403);
    expect((await approve(stranger.token, row.id)).status).toBe(404);
    expect((await deploymentRows(project.id)).find((r) => r.id === row.id)!.status).toBe("pending_approval");
  });

  it("moves pending_approval to queued with approvedBy/approvedAt, audits, then 409 DEPLOYMENT_NOT_PENDING", async () => {
    const row = await pendingDeployment();
    const res = await approve(writer.token, row.id);
    expect(res.status).toBe(200);
    expect(res.body.deployment).toMatchObject({ id: row.id, status: "queued", approvedBy: `user:${writer.id}` });
    expect(res.body.deployment.approvedAt).not.toBeNull();
    const again = await approve(owner.token, row.id);
    expect([again.status, again.body.code]).toEqual([409, "DEPLOYMENT_NOT_PENDING"]);
    const audit = await (await db()).auditLog.findMany({ where: { action: "deployment.approved", target: row.id } });
    expect(audit).toHaveLength(1);
    expect(audit[0].actorUserId).toBe(writer.id);
  });

  it("of two racing approvals exactly one wins", async () => {
    const row = await pendingDeployment();
    const results = await Promise.all([approve(writer.token, row.id), approve(owner.token, row.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it("answers a form caller with 302 to the deployment page", async () => {
    const row = await pendingDeployment();
    const res = await call("POST", `/api/deployments/${row.id}/approve`, { token: writer.token, form: {} });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/${project.path}/deployments/${row.id}`);
    // Pressed again (a stale page): back on the same page with the refusal, not a JSON 409.
    const again = await call("POST", `/api/deployments/${row.id}/approve`, { token: writer.token, form: {} });
    expect(again.status).toBe(302);
    const back = new URL(again.headers.get("location")!, "http://x");
    expect(back.pathname).toBe(`/${project.path}/deployments/${row.id}`);
    expect([back.searchParams.get("code"), back.searchParams.get("error")]).toEqual([
      "DEPLOYMENT_NOT_PENDING",
      "The deployment is not awaiting approval",
    ]);
    // What the caller cannot read stays a 404, form or not.
    expect((await call("POST", `/api/deployments/${row.id}/approve`, { token: stranger.token, form: {} })).status).toBe(
      404,
    );
  });

  it("503 DEPLOY_QUEUE_UNAVAILABLE without the queue binding, before any status change", async () => {
    const row = await pendingDeployment();
    await withEnv({ DEPLOY_QUEUE: "off" }, async () => {
      const res = await approve(writer.token, row.id);
      expect([res.status, res.body.code]).toEqual([503, "DEPLOY_QUEUE_UNAVAILABLE"]);
    });
    expect((await deploymentRows(project.id)).find((r) => r.id === row.id)!.status).toBe("pending_approval");
  });
});

describe("POST /api/deployments/{id}/retry", () => {
  it("409 DEPLOYMENT_NOT_RETRYABLE on a non-terminal deployment", async () => {
    const row = await pendingDeployment();
    const res = await retry(writer.token, row.id);
    expect([res.status, res.body.code]).toEqual([409, "DEPLOYMENT_NOT_RETRYABLE"]);
  });

  it("an agent retries a finished deployment: 201 attempt + 1 of the same commit and change, audited; then 409 DEPLOYMENT_RETRY_EXISTS", async () => {
    await mergeChange(owner.token, project);
    await drainJobs({ timeoutMs: 60_000 });
    const finished = (await deploymentRows(project.id))
      .filter((row) => row.name === "preview" && row.status === "failed")
      .at(-1)!;
    const res = await retry(agent.token, finished.id);
    expect(res.status).toBe(201);
    expect(res.body.deployment).toMatchObject({
      name: "preview",
      commit: finished.commit,
      attempt: 2,
      changeId: finished.changeId,
      requestedBy: `agent:${agent.id}`,
    });
    expect(["queued", "running", "failed"]).toContain(res.body.deployment.status);
    const again = await retry(writer.token, finished.id);
    expect([again.status, again.body.code]).toEqual([409, "DEPLOYMENT_RETRY_EXISTS"]);
    const audit = await (
      await db()
    ).auditLog.findMany({ where: { action: "deployment.retried", target: res.body.deployment.id } });
    expect(audit.map((entry) => entry.actorAgentId)).toEqual([agent.id]);
    const requested = await (
      await db()
    ).domainEvent.findMany({ where: { projectId: project.id, kind: "deployment.requested" } });
    expect(
      requested.some((event) => (event.data as { deploymentId: string }).deploymentId === res.body.deployment.id),
    ).toBe(true);
    await drainJobs({ timeoutMs: 60_000 });
  });

  it("answers a form caller with 302 to the new attempt's page, and a refusal with 302 back to the pressed one", async () => {
    await mergeChange(owner.token, project);
    await drainJobs({ timeoutMs: 60_000 });
    const finished = (await deploymentRows(project.id))
      .filter((row) => row.name === "preview" && row.status === "failed" && row.attempt === 1)
      .at(-1)!;
    const res = await call("POST", `/api/deployments/${finished.id}/retry`, { token: writer.token, form: {} });
    expect(res.status).toBe(302);
    const created = (await deploymentRows(project.id)).find(
      (row) => row.commit === finished.commit && row.name === "preview" && row.attempt === 2,
    )!;
    expect(res.headers.get("location")).toBe(`/${project.path}/deployments/${created.id}`);
    const again = await call("POST", `/api/deployments/${finished.id}/retry`, { token: reader.token, form: {} });
    const back = new URL(again.headers.get("location")!, "http://x");
    expect([again.status, back.pathname, back.searchParams.get("code")]).toEqual([
      302,
      `/${project.path}/deployments/${finished.id}`,
      null,
    ]);
    expect(back.searchParams.get("error")).toMatch(/./);
    await drainJobs({ timeoutMs: 60_000 });
  });

  it("two racing retries make one row", async () => {
    await mergeChange(owner.token, project);
    await drainJobs({ timeoutMs: 60_000 });
    const finished = (await deploymentRows(project.id))
      .filter((row) => row.name === "preview" && row.status === "failed" && row.attempt === 1)
      .at(-1)!;
    const results = await Promise.all([retry(writer.token, finished.id), retry(owner.token, finished.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(
      await (
        await db()
      ).deployment.count({ where: { projectId: project.id, name: "preview", commit: finished.commit, attempt: 2 } }),
    ).toBe(1);
    await drainJobs({ timeoutMs: 60_000 });
  });

  it("refuses readers (403), strangers (404), anonymous (401), and answers 503 without the queue binding", async () => {
    const finished = (await deploymentRows(project.id)).find((row) => row.status === "failed")!;
    expect((await retry(reader.token, finished.id)).status).toBe(403);
    expect((await retry(stranger.token, finished.id)).status).toBe(404);
    expect((await retry(undefined, finished.id)).status).toBe(401);
    const count = await (await db()).deployment.count({ where: { projectId: project.id } });
    await withEnv({ DEPLOY_QUEUE: "off" }, async () => {
      const res = await retry(writer.token, finished.id);
      expect([res.status, res.body.code]).toEqual([503, "DEPLOY_QUEUE_UNAVAILABLE"]);
    });
    expect(await (await db()).deployment.count({ where: { projectId: project.id } })).toBe(count);
  });
});
