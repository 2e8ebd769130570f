import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, startInvalidationListener } from "@/server/db";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";
import { POLICY, changeWith, commitTo, createAgentFor, merge, workspaceOf } from "@/server/changes/test-fixtures";

const env = useTestEnvironment();

type User = Awaited<ReturnType<typeof createTestUser>>;
let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;

let owner: User;
let teamWriter: User;
let orgReader: User;
let collaborator: User;
let stranger: User;
let org: string;

const member = (username: string, role: string) =>
  call("PUT", `/api/orgs/${org}/members/${username}`, { token: owner.token, body: { role } });
const collaborate = (path: string, caller: User, username: string, permission: string) =>
  call("PUT", `/api/projects/${path}/collaborators/${username}`, { token: caller.token, body: { permission } });
const explain = (path: string, caller: User | string, user?: string) =>
  call("GET", `/api/projects/${path}/permission${user ? `?user=${user}` : ""}`, {
    token: typeof caller === "string" ? caller : caller.token,
  });
const readProject = (path: string, caller: User) => call("GET", `/api/projects/${path}`, { token: caller.token });

beforeAll(async () => {
  [owner, teamWriter, orgReader, collaborator, stranger] = await Promise.all([
    createTestUser(),
    createTestUser(),
    createTestUser(),
    createTestUser(),
    createTestUser(),
  ]);
  org = unique("acme");
  expect((await call("POST", "/api/orgs", { token: owner.token, body: { slug: org } })).status).toBe(201);
  await member(teamWriter.username, "read");
  await member(orgReader.username, "read");
  expect((await call("POST", `/api/orgs/${org}/teams`, { token: owner.token, body: { slug: "writers" } })).status).toBe(
    201,
  );
  expect(
    (await call("PUT", `/api/orgs/${org}/teams/writers/members/${teamWriter.username}`, { token: owner.token })).status,
  ).toBe(200);
});

describe("organization projects", () => {
  it("are created at @org/slug by org writers; non-members get 404 and readers 403", async () => {
    const name = unique("svc");
    expect((await call("POST", "/api/projects", { token: stranger.token, body: { name, org } })).status).toBe(404);
    expect((await call("POST", "/api/projects", { token: orgReader.token, body: { name, org } })).status).toBe(403);
    const created = await createTestProject(owner.token, { name, org });
    expect(created.path).toBe(`@${org}/${name}`);
    const listed = await call("GET", "/api/projects", { token: orgReader.token });
    expect(listed.body.projects.map((p: { path: string }) => p.path)).toContain(created.path);
    expect((await readProject(created.path, stranger)).status).toBe(404);
  });

  it("give team members their team's grant, explained, and take it away on the next request", async () => {
    const project = await createTestProject(owner.token, { name: unique("team"), org });
    const outside = await createTestProject(owner.token, { name: unique("mine") });
    expect(
      (
        await call("PUT", `/api/orgs/${org}/teams/writers/projects/${outside.slug}`, {
          token: owner.token,
          body: { permission: "write" },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call("PUT", `/api/orgs/${org}/teams/writers/projects/${project.slug}`, {
          token: owner.token,
          body: { permission: "owner" },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call("PUT", `/api/orgs/${org}/teams/writers/projects/${project.slug}`, {
          token: teamWriter.token,
          body: { permission: "write" },
        })
      ).status,
    ).toBe(403);
    const granted = await call("PUT", `/api/orgs/${org}/teams/writers/projects/${project.slug}`, {
      token: owner.token,
      body: { permission: "write" },
    });
    expect(granted.body).toEqual({ path: project.path, permission: "write" });
    expect(
      (await call("GET", `/api/orgs/${org}/teams/writers/projects`, { token: orgReader.token })).body.projects,
    ).toEqual([{ path: project.path, permission: "write" }]);

    const mine = await explain(project.path, teamWriter);
    expect(mine.body).toEqual({
      user: { id: teamWriter.id, username: teamWriter.username },
      permission: "write",
      grants: [
        { via: "org", name: org, permission: "read" },
        { via: "team", name: "writers", permission: "write" },
      ],
    });
    const ws = await workspaceOf(teamWriter.token, project);
    await commitTo(teamWriter.token, project, ws, { "team.txt": "t\n" });
    expect(
      (
        await call("POST", `/api/workspaces/${project.path}/workspaces`, {
          token: orgReader.token,
          body: { name: "nope" },
        })
      ).status,
    ).toBe(403);

    expect(
      (await call("DELETE", `/api/orgs/${org}/teams/writers/members/${teamWriter.username}`, { token: owner.token }))
        .status,
    ).toBe(200);
    expect((await explain(project.path, teamWriter)).body.permission).toBe("read");
    expect(
      (
        await call("POST", `/api/workspaces/${project.path}/workspaces`, {
          token: teamWriter.token,
          body: { name: "after" },
        })
      ).status,
    ).toBe(403);
    await call("PUT", `/api/orgs/${org}/teams/writers/members/${teamWriter.username}`, { token: owner.token });
    expect(
      (await call("DELETE", `/api/orgs/${org}/teams/writers/projects/${project.slug}`, { token: owner.token })).status,
    ).toBe(200);
    expect((await explain(project.path, teamWriter)).body.permission).toBe("read");
  });
});

describe("collaborators", () => {
  it("are granted and removed by project admins (users), and count from the next request", async () => {
    const project = await createTestProject(owner.token, { name: unique("collab") });
    const agent = await createAgentFor(owner.token);
    expect((await readProject(project.path, collaborator)).status).toBe(404);
    expect(
      (
        await call("PUT", `/api/projects/${project.path}/collaborators/${collaborator.username}`, {
          token: agent.token,
          body: { permission: "read" },
        })
      ).status,
    ).toBe(401);
    expect((await collaborate(project.path, owner, collaborator.username, "owner")).status).toBe(400);
    expect((await collaborate(project.path, owner, "no-such-user-here", "read")).status).toBe(404);
    expect((await collaborate(project.path, stranger, collaborator.username, "read")).status).toBe(404);
    const added = await collaborate(project.path, owner, collaborator.username, "read");
    expect(added.body.collaborator).toEqual({
      user: { id: collaborator.id, username: collaborator.username },
      permission: "read",
    });
    expect((await readProject(project.path, collaborator)).status).toBe(200);
    expect((await collaborate(project.path, collaborator, stranger.username, "read")).status).toBe(403);
    expect(
      (await call("GET", `/api/projects/${project.path}/collaborators`, { token: collaborator.token })).status,
    ).toBe(403);
    expect(
      (
        await call("POST", `/api/workspaces/${project.path}/workspaces`, {
          token: collaborator.token,
          body: { name: "w" },
        })
      ).status,
    ).toBe(403);

    expect((await collaborate(project.path, owner, collaborator.username, "admin")).status).toBe(200);
    expect((await collaborate(project.path, collaborator, stranger.username, "write")).status).toBe(200);
    const listed = await call("GET", `/api/projects/${project.path}/collaborators`, { token: collaborator.token });
    expect(
      listed.body.collaborators.map((c: { user: { username: string }; permission: string }) => [
        c.user.username,
        c.permission,
      ]),
    ).toEqual([
      [collaborator.username, "admin"],
      [stranger.username, "write"],
    ]);
    const explained = await explain(project.path, collaborator, stranger.username);
    expect(explained.body).toMatchObject({
      permission: "write",
      grants: [{ via: "collaborator", permission: "write" }],
    });
    expect((await explain(project.path, stranger, collaborator.username)).status).toBe(403);
    // A query value is decoded once: `?user=no%2525body` asks about "no%25body".
    expect((await explain(project.path, owner, "no%2525body")).body.error).toContain("no%25body");
    expect((await explain(project.path, owner)).body).toMatchObject({
      permission: "owner",
      grants: [{ via: "owner", permission: "owner" }],
    });
    expect((await explain(project.path, agent.token)).body.user.id).toBe(owner.id);

    expect(
      (await call("DELETE", `/api/projects/${project.path}/collaborators/${stranger.username}`, { token: owner.token }))
        .body,
    ).toEqual({ removed: true });
    expect((await readProject(project.path, stranger)).status).toBe(404);
    expect((await explain(project.path, stranger)).status).toBe(404);
    expect(
      (await call("DELETE", `/api/projects/${project.path}/collaborators/${stranger.username}`, { token: owner.token }))
        .status,
    ).toBe(404);

    const audit = await (
      await db()
    ).auditLog.findMany({ where: { projectId: project.id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((row) => row.action)).toEqual([
      "project.collaborator.added",
      "project.collaborator.changed",
      "project.collaborator.added",
      "project.collaborator.removed",
    ]);
  });

  it("shows public projects' read grant to anyone and asks anonymous callers to sign in", async () => {
    const project = await createTestProject(owner.token, { name: unique("open"), visibility: "public" });
    expect((await explain(project.path, stranger)).body).toMatchObject({
      permission: "read",
      grants: [{ via: "public", permission: "read" }],
    });
    expect((await call("GET", `/api/projects/${project.path}/permission`)).status).toBe(401);
  });
});

describe("requiredApprovals with shared access", () => {
  it("counts a team writer's approval; never the author's, nor the owner's on their agent's change", async () => {
    await call("PUT", `/api/orgs/${org}/teams/writers/members/${teamWriter.username}`, { token: owner.token });
    const project = await createTestProject(owner.token, {
      name: unique("gated"),
      org,
      files: { [POLICY]: "requiredApprovals: 1\n" },
    });
    await call("PUT", `/api/orgs/${org}/teams/writers/projects/${project.slug}`, {
      token: owner.token,
      body: { permission: "write" },
    });

    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    await call("POST", `/api/changes/${change.id}/reviews`, { token: owner.token, body: { verdict: "approve" } });
    expect((await merge(owner.token, change.id)).status).toBe(403);
    const approved = await call("POST", `/api/changes/${change.id}/reviews`, {
      token: teamWriter.token,
      body: { verdict: "approve" },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(201);
    expect((await merge(owner.token, change.id)).status).toBe(200);

    const agent = await createAgentFor(owner.token);
    const byAgent = await changeWith(agent.token, project, { "b.txt": "b\n" });
    await call("POST", `/api/changes/${byAgent.change.id}/reviews`, {
      token: owner.token,
      body: { verdict: "approve" },
    });
    const blocked = await merge(owner.token, byAgent.change.id);
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe("PROTECTION_BLOCKED");
  });
});

// Another instance takes a grant away: it writes the row and announces it. This instance had the
// grant cached; its listener must drop it at once (not after AUTH_CACHE_TTL_SECONDS).
describe.runIf(process.env.TEST_DATABASE_URL)("grant changes announced by other instances (PostgreSQL)", () => {
  let listener: Awaited<ReturnType<typeof startInvalidationListener>>;

  beforeAll(async () => {
    listener = await startInvalidationListener(env.databaseUrl);
  });

  afterAll(async () => {
    await listener?.stop();
  });

  it("a collaborator removed elsewhere loses access here within moments", async () => {
    const project = await createTestProject(owner.token, { name: unique("remote") });
    await collaborate(project.path, owner, stranger.username, "read");
    expect((await readProject(project.path, stranger)).status).toBe(200);

    const prisma = await db();
    await prisma.projectCollaborator.deleteMany({ where: { projectId: project.id, userId: stranger.id } });
    // Cached: without the announcement this instance would keep the grant.
    expect((await readProject(project.path, stranger)).status).toBe(200);

    await prisma.$executeRawUnsafe("SELECT pg_notify('svc_invalidate', $1)", "access\n*");
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await readProject(project.path, stranger)).status;
    }
    expect(status).toBe(404);
  });
});
