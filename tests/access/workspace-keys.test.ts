import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db, startInvalidationListener } from "@/server/db";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { sweepDeadKeys } from "@/server/workspaces";
import {
  commitTo,
  createAgentFor,
  eventsOf,
  merge,
  projectWith,
  propose,
  workspaceOf,
  type TestProject,
} from "@/server/changes/test-fixtures";
import { useGitServer, withToken } from "@/tests/git/support";

const env = useTestEnvironment();

type User = Awaited<ReturnType<typeof createTestUser>>;

const keysPath = (project: TestProject, workspace: string) =>
  `/api/workspaces/${project.path}/workspaces/${workspace}/keys`;

async function mintKey(token: string, project: TestProject, workspace: string, body: Record<string, unknown> = {}) {
  const res = await call("POST", keysPath(project, workspace), { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    key: { id: string; workspace: string; projectId: string; expiresAt: string; createdBy: { id: string } };
    plaintext: string;
  };
}

/** A project of `owner` with a workspace holding one commit, and a key for that workspace. */
async function keyedWorkspace(owner: User) {
  const project = await projectWith(owner.token, { "README.md": "hi\n" });
  const workspace = await workspaceOf(owner.token, project);
  const { key, plaintext } = await mintKey(owner.token, project, workspace);
  return { project, workspace, key, token: plaintext };
}

const revokedReason = async (project: TestProject, workspace: string, token: string, keyId: string) => {
  const res = await call("GET", `${keysPath(project, workspace)}?revoked=true`, { token });
  expect(res.status).toBe(200);
  return (res.body.keys as Array<{ id: string; revokedReason: string | null }>).find((key) => key.id === keyId)
    ?.revokedReason;
};

/** The key's answer on a project read, polled until it stops being 200 (a revocation reaching this instance's cache) or 5 s pass. */
async function statusOnceRefused(project: TestProject, token: string): Promise<number> {
  const deadline = Date.now() + 5000;
  let status = 200;
  while (status === 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    status = (await call("GET", `/api/projects/${project.path}`, { token })).status;
  }
  return status;
}

const auditReasons = async (keyId: string) => {
  const rows = await (
    await db()
  ).auditLog.findMany({ where: { target: `workspace_key:${keyId}` }, orderBy: { seq: "asc" } });
  return rows.map(
    (row) =>
      `${row.action}${(row.data as { reason?: string }).reason ? `:${(row.data as { reason: string }).reason}` : ""}`,
  );
};

describe("workspace keys: minting and listing", () => {
  it("answers the plaintext once, lists active keys without it, and audits the creation", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(owner.token, project);
    const minted = await mintKey(owner.token, project, workspace, { ttlMinutes: 5, name: "worker-1" });
    expect(minted.plaintext).toMatch(/^svc_ws_/);
    expect(minted.key).toMatchObject({
      workspace,
      projectId: project.id,
      name: "worker-1",
      createdBy: { id: owner.id },
    });
    expect(Date.parse(minted.key.expiresAt) - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(Date.parse(minted.key.expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60_000);

    const list = await call("GET", keysPath(project, workspace), { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.keys.map((key: { id: string }) => key.id)).toEqual([minted.key.id]);
    expect(JSON.stringify(list.body)).not.toContain(minted.plaintext);
    const stored = await (await db()).workspaceKey.findUniqueOrThrow({ where: { id: minted.key.id } });
    expect(stored.tokenHash).not.toContain(minted.plaintext.slice(7));
    expect(await auditReasons(minted.key.id)).toEqual(["workspace_key.created"]);
  });

  it("refuses bad input, readers, strangers and unknown workspaces", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const stranger = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    await grantCollaborator(project.id, reader.id, "read");
    const workspace = await workspaceOf(owner.token, project);
    expect(
      (await call("POST", keysPath(project, workspace), { token: owner.token, body: { ttlMinutes: 0 } })).status,
    ).toBe(400);
    expect(
      (await call("POST", keysPath(project, workspace), { token: owner.token, body: { ttlMinutes: 1441 } })).status,
    ).toBe(400);
    expect((await call("POST", keysPath(project, workspace), { token: reader.token, body: {} })).status).toBe(403);
    expect((await call("POST", keysPath(project, workspace), { token: stranger.token, body: {} })).status).toBe(404);
    expect((await call("POST", keysPath(project, "nope"), { token: owner.token, body: {} })).status).toBe(404);
  });

  it("an agent mints a key that acts as the agent", async () => {
    const owner = await createTestUser();
    const agent = await createAgentFor(owner.token);
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(agent.token, project);
    const { key, plaintext } = await mintKey(agent.token, project, workspace);
    await commitTo(plaintext, project, workspace, { "a.txt": "a\n" });
    const created = await propose(plaintext, project, workspace);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const row = await (await db()).change.findUniqueOrThrow({ where: { id: created.body.change.id } });
    expect(row).toMatchObject({ agentId: agent.id, authorId: owner.id, keyId: key.id });
  });
});

describe("what a workspace key may do", () => {
  it("reads the project, commits to its workspace, opens and comments on its changes, acting as its creator with its key id", async () => {
    const owner = await createTestUser();
    const { project, workspace, key, token } = await keyedWorkspace(owner);
    expect((await call("GET", `/api/projects/${project.path}`, { token })).status).toBe(200);
    expect((await call("GET", `/api/projects/${project.path}/changes`, { token })).status).toBe(200);
    await commitTo(token, project, workspace, { "a.txt": "a\n" });
    const created = await propose(token, project, workspace);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const changeId = created.body.change.id as string;
    expect((await call("GET", `/api/changes/${changeId}`, { token })).status).toBe(200);
    const comment = await call("POST", `/api/changes/${changeId}/comments`, { token, body: { body: "done" } });
    expect(comment.status, JSON.stringify(comment.body)).toBe(201);

    const events = await eventsOf(project.id);
    const byKey = events
      .filter((event) => (event.data as { keyId?: string }).keyId === key.id)
      .map((event) => event.kind);
    expect(byKey).toEqual(["push", "change.created", "change.evaluated", "change.commented"]);
    expect(new Set(events.filter((event) => byKey.includes(event.kind)).map((event) => event.actor))).toEqual(
      new Set([`user:${owner.id}`]),
    );
  });

  it("is refused everywhere else: other projects 404, other workspaces and other writes 403, token and agent routes 401", async () => {
    const owner = await createTestUser();
    const { project, workspace, token } = await keyedWorkspace(owner);
    const other = await projectWith(owner.token, { "README.md": "other\n" });
    const sibling = await workspaceOf(owner.token, project);
    await commitTo(owner.token, project, sibling, { "s.txt": "s\n" });
    const siblingChange = (await propose(owner.token, project, sibling)).body.change.id as string;

    expect((await call("GET", `/api/projects/${other.path}`, { token })).status).toBe(404);
    const listed = await call("GET", "/api/projects", { token });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(project.id);
    expect(JSON.stringify(listed.body)).not.toContain(other.id);
    expect(
      (
        await call("POST", `/api/workspaces/${workspace}/commit`, {
          token,
          body: { projectId: other.id, message: "m", files: { "x.txt": "x\n" } },
        })
      ).status,
    ).toBe(404);

    const scoped = async (method: string, path: string, body?: unknown) => {
      const res = await call(method, path, { token, body });
      expect([res.status, res.body.code], `${method} ${path}`).toEqual([403, "TOKEN_SCOPE_INSUFFICIENT"]);
    };
    await scoped("POST", `/api/workspaces/${sibling}/commit`, {
      projectId: project.id,
      message: "m",
      files: { "x.txt": "x\n" },
    });
    await scoped("POST", `/api/projects/${project.path}/changes`, { workspace: sibling });
    await scoped("POST", `/api/changes/${siblingChange}/comments`, { body: "hi" });
    await scoped("POST", `/api/changes/${siblingChange}/merge`);
    await scoped("POST", `/api/changes/${siblingChange}/reject`);
    await scoped("POST", `/api/workspaces/${project.path}/workspaces`, { name: "new-one" });
    await scoped("POST", `/api/projects/${project.path}/issues`, { title: "t" });
    await scoped("POST", keysPath(project, workspace), {});

    for (const [method, path] of [
      ["GET", "/api/users/me/tokens"],
      ["GET", "/api/agents"],
      ["POST", "/api/agents"],
    ] as const) {
      expect(
        (await call(method, path, { token, body: method === "POST" ? { name: "x" } : undefined })).status,
        `${method} ${path}`,
      ).toBe(401);
    }
  });

  describe("over git smart HTTP", () => {
    const git = useGitServer();

    it("pushes to its workspace's remote with the key as the Basic password, and nowhere else", async () => {
      const owner = await createTestUser();
      const project = await projectWith(owner.token, { "README.md": "hi\n" });
      const workspace = await workspaceOf(owner.token, project);
      const sibling = await workspaceOf(owner.token, project);
      const { key, plaintext } = await mintKey(owner.token, project, workspace);
      const list = await call("GET", `/api/workspaces/${project.path}/workspaces`, { token: owner.token });
      const remoteOf = (name: string) =>
        list.body.workspaces.find((w: { name: string }) => w.name === name).remote as string;

      const dir = git.git.dir("clone");
      await git.git.ok(["clone", "-q", withToken(remoteOf(workspace), plaintext), dir]);
      await git.git.commit(dir, { "pushed.txt": "p\n" }, "pushed with a key");
      await git.git.ok(["push", "-q", "origin", "HEAD"], { cwd: dir });
      const push = (await eventsOf(project.id, "push")).at(-1)!;
      expect(push.data).toMatchObject({ workspace, keyId: key.id });

      const refusedSibling = await git.git.run(
        ["push", "-q", withToken(remoteOf(sibling), plaintext), "HEAD:refs/heads/main"],
        { cwd: dir },
      );
      expect(refusedSibling.code).not.toBe(0);
      const refusedProject = await git.git.run(
        ["push", "-q", withToken(project.remote, plaintext), "HEAD:refs/heads/main"],
        { cwd: dir },
      );
      expect(refusedProject.code).not.toBe(0);
      expect((await git.git.run(["ls-remote", withToken(project.remote, plaintext)])).code).toBe(0);
    });
  });
});

describe("a workspace key revokes itself", () => {
  const expectDead = async (token: string, project: TestProject) => {
    const res = await call("GET", `/api/projects/${project.path}`, { token });
    expect(res.status).toBe(401);
  };

  it("when a change from its workspace is merged (in the merge's transaction)", async () => {
    const owner = await createTestUser();
    const { project, workspace, key, token } = await keyedWorkspace(owner);
    await commitTo(token, project, workspace, { "a.txt": "a\n" });
    const changeId = (await propose(token, project, workspace)).body.change.id as string;
    expect((await merge(owner.token, changeId)).status).toBe(200);
    await expectDead(token, project);
    expect(await revokedReason(project, workspace, owner.token, key.id)).toBe("merged");
    expect(await auditReasons(key.id)).toEqual(["workspace_key.created", "workspace_key.revoked:merged"]);
    const provenance = await (await db()).provenance.findFirstOrThrow({ where: { changeId } });
    expect(provenance.keyId).toBe(key.id);
  });

  it("when a change from its workspace is rejected; keys of other workspaces live on", async () => {
    const owner = await createTestUser();
    const { project, workspace, key, token } = await keyedWorkspace(owner);
    const other = await workspaceOf(owner.token, project);
    const bystander = await mintKey(owner.token, project, other);
    await commitTo(token, project, workspace, { "a.txt": "a\n" });
    const changeId = (await propose(token, project, workspace)).body.change.id as string;
    expect((await call("POST", `/api/changes/${changeId}/reject`, { token: owner.token })).status).toBe(200);
    await expectDead(token, project);
    expect(await revokedReason(project, workspace, owner.token, key.id)).toBe("rejected");
    expect((await call("GET", `/api/projects/${project.path}`, { token: bystander.plaintext })).status).toBe(200);
  });

  it("when its TTL passes", async () => {
    const owner = await createTestUser();
    const { project, workspace, key, token } = await keyedWorkspace(owner);
    expect((await call("GET", `/api/projects/${project.path}`, { token })).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.parse(key.expiresAt) + 1);
      await expectDead(token, project);
      // Recorded where the key was refused, before anyone lists the keys or the sweep runs.
      expect(await auditReasons(key.id)).toEqual(["workspace_key.created", "workspace_key.revoked:expired"]);
      expect(await revokedReason(project, workspace, owner.token, key.id)).toBe("expired");
      expect((await call("GET", keysPath(project, workspace), { token: owner.token })).body.keys).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("when revoked by its creator, and only the creator or a project admin may", async () => {
    const owner = await createTestUser();
    const writer = await createTestUser();
    const { project, workspace, key, token } = await keyedWorkspace(owner);
    await grantCollaborator(project.id, writer.id, "write");
    expect((await call("DELETE", `/api/workspace-keys/${key.id}`, { token: writer.token })).status).toBe(403);
    expect((await call("DELETE", `/api/workspace-keys/${key.id}`, { token })).status).toBe(403);
    const res = await call("DELETE", `/api/workspace-keys/${key.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: true, id: key.id });
    await expectDead(token, project);
    expect(await revokedReason(project, workspace, owner.token, key.id)).toBe("revoked");
    expect((await call("DELETE", "/api/workspace-keys/not-a-uuid", { token: owner.token })).status).toBe(404);
  });

  it("when its creator's write access ends", async () => {
    const owner = await createTestUser();
    const writer = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    await grantCollaborator(project.id, writer.id, "write");
    const workspace = await workspaceOf(writer.token, project);
    const { key, plaintext } = await mintKey(writer.token, project, workspace);
    expect((await call("GET", `/api/projects/${project.path}`, { token: plaintext })).status).toBe(200);
    expect(
      (
        await call("PUT", `/api/projects/${project.path}/collaborators/${writer.username}`, {
          token: owner.token,
          body: { permission: "read" },
        })
      ).status,
    ).toBeLessThan(300);
    // Recorded by the grant change itself, before the key is presented or listed.
    expect(await auditReasons(key.id)).toEqual(["workspace_key.created", "workspace_key.revoked:access_lost"]);
    await expectDead(plaintext, project);
    expect(await revokedReason(project, workspace, owner.token, key.id)).toBe("access_lost");
  });

  it.each([
    ["removed as a collaborator", "collaborator"],
    ["removed from the organization", "member"],
    ["removed from the team that gave write", "team member"],
    ["left without the team grant that gave write", "team grant"],
  ])("access_lost is audited at once when its creator is %s", async (_, how) => {
    const owner = await createTestUser();
    const writer = await createTestUser();
    const org = `org${writer.username.replace(/[^a-z0-9]/gi, "").slice(-20)}`;
    expect((await call("POST", "/api/orgs", { token: owner.token, body: { slug: org } })).status).toBe(201);
    const created = await call("POST", "/api/projects", {
      token: owner.token,
      body: { name: "keyed", org, files: { "README.md": "hi\n" } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const project = created.body as TestProject;
    const grants = `/api/orgs/${org}`;
    if (how === "collaborator") await grantCollaborator(project.id, writer.id, "write");
    else {
      expect(
        (await call("PUT", `${grants}/members/${writer.username}`, { token: owner.token, body: { role: "read" } }))
          .status,
      ).toBeLessThan(300);
      expect((await call("POST", `${grants}/teams`, { token: owner.token, body: { slug: "crew" } })).status).toBe(201);
      expect(
        (await call("PUT", `${grants}/teams/crew/members/${writer.username}`, { token: owner.token })).status,
      ).toBeLessThan(300);
      expect(
        (
          await call("PUT", `${grants}/teams/crew/projects/keyed`, {
            token: owner.token,
            body: { permission: "write" },
          })
        ).status,
      ).toBeLessThan(300);
    }
    const workspace = await workspaceOf(writer.token, project);
    const { key, plaintext } = await mintKey(writer.token, project, workspace);
    expect((await call("GET", `/api/projects/${project.path}`, { token: plaintext })).status).toBe(200);
    const removal = {
      collaborator: () =>
        call("DELETE", `/api/projects/${project.path}/collaborators/${writer.username}`, { token: owner.token }),
      member: () => call("DELETE", `${grants}/members/${writer.username}`, { token: owner.token }),
      "team member": () => call("DELETE", `${grants}/teams/crew/members/${writer.username}`, { token: owner.token }),
      "team grant": () => call("DELETE", `${grants}/teams/crew/projects/keyed`, { token: owner.token }),
    }[how]!;
    const removed = await removal();
    expect(removed.status, JSON.stringify(removed.body)).toBeLessThan(300);
    expect(await auditReasons(key.id)).toEqual(["workspace_key.created", "workspace_key.revoked:access_lost"]);
    await expectDead(plaintext, project);
  });

  it("when its creator's own credential is revoked (an agent deleted)", async () => {
    const owner = await createTestUser();
    const agent = await createAgentFor(owner.token);
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(agent.token, project);
    const { key, plaintext } = await mintKey(agent.token, project, workspace);
    expect((await call("GET", `/api/projects/${project.path}`, { token: plaintext })).status).toBe(200);
    expect((await call("DELETE", `/api/agents/${agent.id}`, { token: owner.token })).status).toBe(200);
    await expectDead(plaintext, project);
    expect(await revokedReason(project, workspace, owner.token, key.id)).toBe("revoked");
  });

  it("when its project is deleted", async () => {
    const owner = await createTestUser();
    const { project, token } = await keyedWorkspace(owner);
    expect((await call("GET", `/api/projects/${project.path}`, { token })).status).toBe(200);
    expect(
      (await call("DELETE", `/api/projects/${project.path}`, { token: owner.token, body: { confirm: project.path } }))
        .status,
    ).toBe(202);
    const res = await call("GET", `/api/projects/${project.path}`, { token });
    expect([401, 404]).toContain(res.status);
    expect((await call("GET", `/api/workspaces/${project.path}/workspaces`, { token })).status).not.toBe(200);
  });
});

// Another instance merges the change: it revokes the key in its transaction and announces the
// creator at commit. This instance had the key cached; its listener must drop it at once.
describe("the background sweep", () => {
  it("records keys that died unseen (expired, access_lost) in the list and the audit log, and leaves live ones", async () => {
    const owner = await createTestUser();
    const writer = await createTestUser();
    const expiring = await keyedWorkspace(owner);
    const live = await mintKey(owner.token, expiring.project, expiring.workspace, { ttlMinutes: 1440 });
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    await grantCollaborator(project.id, writer.id, "write");
    const writersWorkspace = await workspaceOf(writer.token, project);
    const demoted = await mintKey(writer.token, project, writersWorkspace);
    expect(
      (
        await call("PUT", `/api/projects/${project.path}/collaborators/${writer.username}`, {
          token: owner.token,
          body: { permission: "read" },
        })
      ).status,
    ).toBeLessThan(300);
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.parse(expiring.key.expiresAt) + 1);
      // Nobody lists the keys: the sweep alone records why they ended.
      expect(await sweepDeadKeys()).toBeGreaterThanOrEqual(2);
      expect(await sweepDeadKeys()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    expect(await auditReasons(expiring.key.id)).toEqual(["workspace_key.created", "workspace_key.revoked:expired"]);
    expect(await auditReasons(demoted.key.id)).toEqual(["workspace_key.created", "workspace_key.revoked:access_lost"]);
    expect(await auditReasons(live.key.id)).toEqual(["workspace_key.created"]);
    expect(await revokedReason(expiring.project, expiring.workspace, owner.token, live.key.id)).toBeNull();
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("revocations made by other instances (PostgreSQL)", () => {
  let listener: Awaited<ReturnType<typeof startInvalidationListener>>;
  beforeAll(async () => {
    listener = await startInvalidationListener(env.databaseUrl);
  });
  afterAll(async () => {
    await listener?.stop();
  });

  it("a key revoked in another instance's transaction stops working here when it commits", async () => {
    const owner = await createTestUser();
    const { project, key, token } = await keyedWorkspace(owner);
    expect((await call("GET", `/api/projects/${project.path}`, { token })).status).toBe(200);
    const pg = (await import("pg")).default;
    const other = new pg.Client({ connectionString: env.databaseUrl });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query(`UPDATE "WorkspaceKey" SET "revokedAt" = now(), "revokedReason" = 'merged' WHERE id = $1`, [
        key.id,
      ]);
      await other.query("SELECT pg_notify('svc_invalidate', $1)", [`credentials\n${owner.id}`]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Not yet committed: the notification waits for the commit, and the cached key still works.
      expect((await call("GET", `/api/projects/${project.path}`, { token })).status).toBe(200);
      await other.query("COMMIT");
    } finally {
      await other.end();
    }
    expect(await statusOnceRefused(project, token)).toBe(401);
  });

  it("a merge on this instance reaches the cache through the channel at commit", async () => {
    const owner = await createTestUser();
    const { project, workspace, token } = await keyedWorkspace(owner);
    await commitTo(token, project, workspace, { "a.txt": "a\n" });
    const changeId = (await propose(token, project, workspace)).body.change.id as string;
    expect((await merge(owner.token, changeId)).status).toBe(200);
    expect(await statusOnceRefused(project, token)).toBe(401);
  });
});
