import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { runSvcCommand } from "@/server/users/cli";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment();

const ADMIN = { "x-admin-api-key": TEST_ADMIN_KEY };
const asAdmin = (path: string, headers: Record<string, string> = {}) =>
  call("GET", path, { headers: { ...ADMIN, ...headers } });

async function addCollaborator(
  ownerToken: string,
  projectPath: string,
  username: string,
  headers: Record<string, string> = {},
) {
  const res = await call("PUT", `/api/projects/${projectPath}/collaborators/${username}`, {
    token: ownerToken,
    body: { permission: "read" },
    headers,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe("the audit log", () => {
  it("records an audited action in its transaction, with actor, target and the caller's address", async () => {
    const owner = await createTestUser();
    const friend = await createTestUser();
    const project = await createTestProject(owner.token, { name: "audited" });
    await addCollaborator(owner.token, project.path, friend.username, { "x-svc-peer-address": "203.0.113.7" });

    const res = await asAdmin(`/api/admin/audit?action=project.collaborator.added&project=${project.path}`);
    expect(res.status).toBe(200);
    expect(res.body.entries).toHaveLength(1);
    expect(res.body.entries[0]).toMatchObject({
      action: "project.collaborator.added",
      actor: `user:${owner.id}`,
      projectId: project.id,
      target: `user:${friend.id}`,
      ip: "203.0.113.7",
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it("takes a forwarded address only with TRUST_PROXY=1, and then the one our proxy appended", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "proxied" });
    const headers = { "x-svc-peer-address": "10.0.0.2", "x-forwarded-for": "198.51.100.1, 192.0.2.9" };
    const first = await createTestUser();
    const second = await createTestUser();
    await withEnv({ TRUST_PROXY: undefined }, () =>
      addCollaborator(owner.token, project.path, first.username, headers),
    );
    await withEnv({ TRUST_PROXY: "1" }, () => addCollaborator(owner.token, project.path, second.username, headers));
    const res = await asAdmin(`/api/admin/audit?project=${project.path}&action=project.collaborator.added`);
    const byTarget = Object.fromEntries(
      res.body.entries.map((entry: { target: string; ip: string }) => [entry.target, entry.ip]),
    );
    expect(byTarget[`user:${first.id}`]).toBe("10.0.0.2");
    expect(byTarget[`user:${second.id}`]).toBe("192.0.2.9");
  });

  it("filters by actor and pages with before, newest first", async () => {
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await createTestUser());
    const all = await asAdmin("/api/admin/audit?actor=admin-key&action=admin.user.created&limit=2");
    expect(all.status).toBe(200);
    expect(all.body.entries).toHaveLength(2);
    expect(all.body.entries[0].target).toBe(`user:${created[2].id}`);
    expect(all.body.entries[1].target).toBe(`user:${created[1].id}`);
    const next = await asAdmin(
      `/api/admin/audit?actor=admin-key&action=admin.user.created&limit=2&before=${all.body.entries[1].id}`,
    );
    expect(next.body.entries[0].target).toBe(`user:${created[0].id}`);
    expect((await asAdmin(`/api/admin/audit?project=@nobody/nothing`)).body.entries).toEqual([]);
  });

  it("answers 400 for a bad limit and 404 for an unknown cursor", async () => {
    expect((await asAdmin("/api/admin/audit?limit=201")).status).toBe(400);
    expect((await asAdmin("/api/admin/audit?limit=0")).status).toBe(400);
    expect((await asAdmin(`/api/admin/audit?before=${crypto.randomUUID()}`)).status).toBe(404);
  });

  it("admits administrators' own credentials, refuses OAuth grants (403 ADMIN_REQUIRES_DIRECT_CREDENTIAL) and others", async () => {
    const made = await call("POST", "/api/admin/users", { headers: ADMIN, body: { username: "root1", isAdmin: true } });
    expect(made.status).toBe(201);
    expect((await call("GET", "/api/admin/audit", { token: made.body.token })).status).toBe(200);
    const grant = ((await runSvcCommand(["oauth:grant", "root1", "--scope", "read"])) as { token: string }).token;
    const refused = await call("GET", "/api/admin/audit", { token: grant });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("ADMIN_REQUIRES_DIRECT_CREDENTIAL");
    const plain = await createTestUser();
    expect((await call("GET", "/api/admin/audit/verify", { token: plain.token })).status).toBe(403);
    expect((await call("GET", "/api/admin/audit/verify")).status).toBe(401);
  });

  it("keeps one chain under concurrent writers", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "busy" });
    const users = await Promise.all(Array.from({ length: 8 }, () => createTestUser()));
    await Promise.all(users.map((user) => addCollaborator(owner.token, project.path, user.username)));
    const verified = await asAdmin("/api/admin/audit/verify");
    expect(verified.body).toMatchObject({ ok: true, firstBrokenId: null });
    const prisma = await db();
    const rows = await prisma.auditLog.findMany({ orderBy: { seq: "asc" } });
    expect(verified.body.entries).toBe(rows.length);
    expect(rows.map((row) => Number(row.seq))).toEqual(rows.map((_, index) => index + 1));
  });

  it("finds an edited entry and a deleted one", async () => {
    const prisma = await db();
    const rows = await prisma.auditLog.findMany({ orderBy: { seq: "asc" } });
    expect(rows.length).toBeGreaterThan(4);
    const edited = rows[2];
    await prisma.auditLog.update({ where: { id: edited.id }, data: { data: { username: "someone-else" } } });
    expect((await asAdmin("/api/admin/audit/verify")).body).toMatchObject({ ok: false, firstBrokenId: edited.id });
    await prisma.auditLog.update({ where: { id: edited.id }, data: { data: edited.data as object } });
    expect((await asAdmin("/api/admin/audit/verify")).body.ok).toBe(true);

    await prisma.auditLog.delete({ where: { id: rows[3].id } });
    expect((await asAdmin("/api/admin/audit/verify")).body).toMatchObject({ ok: false, firstBrokenId: rows[4].id });
  });
});
