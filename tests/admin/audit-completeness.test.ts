import { expect, it } from "vitest";
import { AUDIT_ACTIONS } from "@/server/audit";
import { createAgentFor, merge, changeWith } from "@/server/changes/test-fixtures";
import { createTestProject } from "@/server/projects/test-fixtures";
import { completedBackup, restoreArchive, switchToFreshInstance } from "@/tests/support/backup";
import { deploymentRows, projectDeploying } from "@/tests/deployments/support";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestSession } from "@/tests/support/sessions";
import { createTestUser } from "@/tests/support/users";

useTestEnvironment({
  AUTH_CACHE_TTL_SECONDS: "0",
  DEPLOY_SECRET_KEY: Buffer.alloc(32, 5).toString("base64"),
  ALLOW_PRIVATE_TARGETS: "1",
});
useTestJobs();

const ADMIN = { "x-admin-api-key": TEST_ADMIN_KEY };
// Nothing listens there: the deployments fail, which makes them retryable.
const DEAD_URL = "http://127.0.0.1:9/hook";

async function ok(res: Promise<{ status: number; body: unknown }>, status = 200) {
  const answered = await res;
  expect(answered.status, JSON.stringify(answered.body)).toBe(status);
  return answered.body as Record<string, any>;
}

/** Drives every audited operation once, through the API, the last one being a restore. */
async function driveEveryAuditedOperation() {
  const owner = await createTestUser();
  const friend = await createTestUser();
  const as = { token: owner.token };

  const { cookie } = await createTestSession(owner.username);
  const token = await ok(call("POST", "/api/users/me/tokens", { cookie, body: { name: "audited" } }), 201);
  await ok(call("DELETE", `/api/users/me/tokens/${token.token.id}`, { cookie }));
  const agent = await createAgentFor(owner.token);
  await ok(call("DELETE", `/api/agents/${agent.id}`, as));

  const org = `audited-${Date.now()}`;
  await ok(call("POST", "/api/orgs", { ...as, body: { slug: org } }), 201);
  await ok(call("PUT", `/api/orgs/${org}/members/${friend.username}`, { ...as, body: { role: "read" } }));
  await ok(call("PUT", `/api/orgs/${org}/members/${friend.username}`, { ...as, body: { role: "write" } }));
  await ok(call("POST", `/api/orgs/${org}/teams`, { ...as, body: { slug: "core" } }), 201);
  await ok(call("PUT", `/api/orgs/${org}/teams/core/members/${friend.username}`, as));
  const orgProject = await createTestProject(owner.token, { name: "team-owned", org });
  await ok(
    call("PUT", `/api/orgs/${org}/teams/core/projects/${orgProject.slug}`, { ...as, body: { permission: "write" } }),
  );
  await ok(call("DELETE", `/api/orgs/${org}/teams/core/projects/${orgProject.slug}`, as));
  await ok(call("DELETE", `/api/orgs/${org}/teams/core/members/${friend.username}`, as));
  await ok(call("DELETE", `/api/orgs/${org}/teams/core`, as));
  await ok(call("DELETE", `/api/orgs/${org}/members/${friend.username}`, as));

  const project = await projectDeploying(
    owner.token,
    { name: "production", provider: "webhook", url: DEAD_URL, requireApproval: true },
    { name: "preview", provider: "webhook", url: DEAD_URL },
  );
  const collaborator = `/api/projects/${project.path}/collaborators/${friend.username}`;
  await ok(call("PUT", collaborator, { ...as, body: { permission: "read" } }));
  await ok(call("PUT", collaborator, { ...as, body: { permission: "write" } }));
  await ok(call("DELETE", collaborator, as));
  await ok(call("PUT", `/api/projects/${project.path}/secrets/API_KEY`, { ...as, body: { value: "v" } }), 201);
  await ok(call("DELETE", `/api/projects/${project.path}/secrets/API_KEY`, as));
  await ok(call("PATCH", `/api/projects/${project.path}`, { ...as, body: { description: "audited" } }));

  await ok(call("POST", `/api/workspaces/${project.path}/workspaces`, { ...as, body: { name: "keyed" } }), 201);
  const minted = await ok(
    call("POST", `/api/workspaces/${project.path}/workspaces/keyed/keys`, { ...as, body: {} }),
    201,
  );
  await ok(call("DELETE", `/api/workspace-keys/${minted.key.id}`, as));

  const { change } = await changeWith(owner.token, project, { "f.txt": "x\n" });
  expect((await merge(owner.token, change.id)).status).toBe(200);
  const pending = (await deploymentRows(project.id)).find((row) => row.status === "pending_approval")!;
  await ok(call("POST", `/api/deployments/${pending.id}/approve`, as));
  await drainJobs({ timeoutMs: 60_000 });
  const failed = (await deploymentRows(project.id)).find((row) => row.status === "failed")!;
  await ok(call("POST", `/api/deployments/${failed.id}/retry`, as), 201);
  await drainJobs({ timeoutMs: 60_000 });

  const doomed = await createTestProject(owner.token, { name: "doomed" });
  await ok(call("DELETE", `/api/projects/${doomed.path}`, { ...as, body: { confirm: doomed.path } }), 202);
  await drainJobs();

  const { archive } = await completedBackup();
  await switchToFreshInstance();
  const { restore } = await restoreArchive(archive);
  expect(restore).toMatchObject({ status: "completed" });
}

it("every action declared in AuditAction is written by some operation", async () => {
  await driveEveryAuditedOperation();
  const unwritten = [];
  for (const action of AUDIT_ACTIONS) {
    const res = await call("GET", `/api/admin/audit?action=${action}&limit=1`, { headers: ADMIN });
    expect(res.status).toBe(200);
    if (res.body.entries.length === 0) unwritten.push(action);
  }
  expect(unwritten).toEqual([]);
  expect((await call("GET", "/api/admin/audit/verify", { headers: ADMIN })).body).toMatchObject({ ok: true });
}, 180_000);
