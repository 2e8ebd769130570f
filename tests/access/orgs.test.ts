import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { TEST_ADMIN_KEY } from "@/tests/support/harness";

useTestEnvironment();

type User = Awaited<ReturnType<typeof createTestUser>>;
let counter = 0;
const slug = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;

async function createOrg(owner: User, orgSlug = slug("org")) {
  const res = await call("POST", "/api/orgs", { token: owner.token, body: { slug: orgSlug } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.org as { id: string; slug: string; name: string };
}

const putMember = (org: string, caller: User, username: string, role: string) =>
  call("PUT", `/api/orgs/${org}/members/${username}`, { token: caller.token, body: { role } });

async function agentOf(owner: User) {
  const res = await call("POST", "/api/agents", { token: owner.token, body: { name: "bot" } });
  expect(res.status).toBe(201);
  return res.body.token as string;
}

async function auditActions(target: string) {
  const rows = await (await db()).auditLog.findMany({ where: { target }, orderBy: { createdAt: "asc" } });
  return rows.map((row) => row.action);
}

let owner: User;
let admin: User;
let writer: User;
let reader: User;
let stranger: User;

beforeAll(async () => {
  [owner, admin, writer, reader, stranger] = await Promise.all([
    createTestUser(),
    createTestUser(),
    createTestUser(),
    createTestUser(),
    createTestUser(),
  ]);
});

describe("organizations", () => {
  it("creates an organization whose creator is owner; the slug shares one namespace with usernames", async () => {
    const org = await createOrg(owner);
    expect(org.name).toBe(org.slug);
    const listed = await call("GET", "/api/orgs", { token: owner.token });
    expect(listed.body.orgs).toContainEqual(expect.objectContaining({ slug: org.slug, role: "owner" }));

    for (const taken of [org.slug, stranger.username]) {
      const res = await call("POST", "/api/orgs", { token: admin.token, body: { slug: taken } });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("NAMESPACE_TAKEN");
    }
    const named = await call("POST", "/api/orgs", {
      token: owner.token,
      body: { slug: slug("named"), name: "Named Org" },
    });
    expect(named.body.org.name).toBe("Named Org");
    for (const body of [{}, { slug: "" }, { slug: "has space" }, { slug: "x".repeat(65) }, { slug: "a\u0000b" }]) {
      expect((await call("POST", "/api/orgs", { token: owner.token, body })).status, JSON.stringify(body)).toBe(400);
    }
    const user = await call("POST", "/api/admin/users", {
      body: { username: org.slug },
      headers: { "x-admin-api-key": TEST_ADMIN_KEY },
    });
    expect(user.status).toBe(409);
    expect(await auditActions(`org:${org.slug}`)).toEqual(["org.created"]);
  });

  it("refuses agents on every write with 401 and lists the owner's organizations to them", async () => {
    const org = await createOrg(owner);
    const agent = await agentOf(owner);
    expect((await call("POST", "/api/orgs", { token: agent, body: { slug: slug("bot") } })).status).toBe(401);
    expect(
      (await call("PUT", `/api/orgs/${org.slug}/members/${reader.username}`, { token: agent, body: { role: "read" } }))
        .status,
    ).toBe(401);
    expect((await call("POST", `/api/orgs/${org.slug}/teams`, { token: agent, body: { slug: "t" } })).status).toBe(401);
    const listed = await call("GET", "/api/orgs", { token: agent });
    expect(listed.status).toBe(200);
    expect(listed.body.orgs.map((o: { slug: string }) => o.slug)).toContain(org.slug);
    expect((await call("GET", "/api/orgs")).status).toBe(401);
  });

  it("hides an organization from non-members with 404 and shows it to members", async () => {
    const org = await createOrg(owner);
    expect((await call("GET", `/api/orgs/${org.slug}`, { token: stranger.token })).status).toBe(404);
    expect((await call("GET", `/api/orgs/${org.slug}/members`, { token: stranger.token })).status).toBe(404);
    expect((await call("GET", `/api/orgs/nope-${org.slug}`, { token: owner.token })).status).toBe(404);
    expect((await putMember(org.slug, stranger, reader.username, "read")).status).toBe(404);
    expect((await putMember(org.slug, owner, reader.username, "read")).status).toBe(200);
    const got = await call("GET", `/api/orgs/${org.slug}`, { token: reader.token });
    expect(got.status).toBe(200);
    expect(got.body.org).toMatchObject({ slug: org.slug, role: "read" });
  });

  it("lets admins manage members, only owners grant or take owner, and keeps the last owner", async () => {
    const org = await createOrg(owner);
    expect((await putMember(org.slug, owner, admin.username, "admin")).status).toBe(200);
    const added = await putMember(org.slug, admin, writer.username, "write");
    expect(added.status).toBe(200);
    expect(added.body.member).toMatchObject({ user: { id: writer.id, username: writer.username }, role: "write" });
    expect((await putMember(org.slug, writer, reader.username, "read")).status).toBe(403);
    expect((await putMember(org.slug, admin, writer.username, "owner")).status).toBe(403);
    expect((await putMember(org.slug, admin, owner.username, "read")).status).toBe(403);
    expect(
      (await call("DELETE", `/api/orgs/${org.slug}/members/${owner.username}`, { token: admin.token })).status,
    ).toBe(403);
    expect((await putMember(org.slug, owner, "nobody-at-all", "read")).status).toBe(404);
    expect((await putMember(org.slug, owner, writer.username, "superuser")).status).toBe(400);

    const lastDemote = await putMember(org.slug, owner, owner.username, "admin");
    expect(lastDemote.status).toBe(409);
    expect(lastDemote.body.code).toBe("LAST_OWNER");
    const lastLeave = await call("DELETE", `/api/orgs/${org.slug}/members/${owner.username}`, { token: owner.token });
    expect(lastLeave.status).toBe(409);
    expect(lastLeave.body.code).toBe("LAST_OWNER");

    expect((await putMember(org.slug, owner, admin.username, "owner")).status).toBe(200);
    expect((await putMember(org.slug, admin, owner.username, "write")).status).toBe(200);
    const members = (await call("GET", `/api/orgs/${org.slug}/members`, { token: writer.token })).body.members;
    expect(
      Object.fromEntries(members.map((m: { user: { username: string }; role: string }) => [m.user.username, m.role])),
    ).toEqual({
      [owner.username]: "write",
      [admin.username]: "owner",
      [writer.username]: "write",
    });
    const left = await call("DELETE", `/api/orgs/${org.slug}/members/${writer.username}`, { token: writer.token });
    expect(left.body).toEqual({ removed: true });
    expect((await call("GET", `/api/orgs/${org.slug}`, { token: writer.token })).status).toBe(404);
    expect(await auditActions(`org:${org.slug}`)).toEqual([
      "org.created",
      "org.member.added",
      "org.member.added",
      "org.member.changed",
      "org.member.changed",
      "org.member.removed",
    ]);
  });

  it("never leaves an organization without an owner when two owners demote each other at once", async () => {
    const org = await createOrg(owner);
    expect((await putMember(org.slug, owner, admin.username, "owner")).status).toBe(200);
    const [a, b] = await Promise.all([
      putMember(org.slug, owner, admin.username, "read"),
      putMember(org.slug, admin, owner.username, "read"),
    ]);
    // The loser either finds itself demoted already (403) or would remove the last owner (409).
    expect([a.status, b.status].filter((status) => status === 200)).toHaveLength(1);
    expect([a.status, b.status].find((status) => status !== 200)).toBeOneOf([403, 409]);
    const owners = await (await db()).orgMember.count({ where: { orgId: org.id, role: "owner" } });
    expect(owners).toBe(1);
  });
});

describe("teams", () => {
  it("creates, lists and deletes teams; members join only from the organization", async () => {
    const org = await createOrg(owner);
    await putMember(org.slug, owner, admin.username, "admin");
    await putMember(org.slug, owner, reader.username, "read");
    const created = await call("POST", `/api/orgs/${org.slug}/teams`, {
      token: admin.token,
      body: { slug: "core", description: "the core" },
    });
    expect(created.status).toBe(201);
    expect(created.body.team).toMatchObject({ slug: "core", name: "core", description: "the core" });
    expect(
      (await call("POST", `/api/orgs/${org.slug}/teams`, { token: admin.token, body: { slug: "core" } })).status,
    ).toBe(409);
    expect(
      (await call("POST", `/api/orgs/${org.slug}/teams`, { token: reader.token, body: { slug: "mine" } })).status,
    ).toBe(403);
    expect(
      (await call("POST", `/api/orgs/${org.slug}/teams`, { token: stranger.token, body: { slug: "mine" } })).status,
    ).toBe(404);
    expect(
      (await call("GET", `/api/orgs/${org.slug}/teams`, { token: reader.token })).body.teams.map(
        (t: { slug: string }) => t.slug,
      ),
    ).toEqual(["core"]);

    const outsider = await call("PUT", `/api/orgs/${org.slug}/teams/core/members/${stranger.username}`, {
      token: admin.token,
    });
    expect(outsider.status).toBe(422);
    expect(outsider.body.code).toBe("NOT_ORG_MEMBER");
    expect(
      (await call("PUT", `/api/orgs/${org.slug}/teams/core/members/${reader.username}`, { token: reader.token }))
        .status,
    ).toBe(403);
    expect(
      (await call("PUT", `/api/orgs/${org.slug}/teams/core/members/${reader.username}`, { token: admin.token })).status,
    ).toBe(200);
    expect(
      (await call("PUT", `/api/orgs/${org.slug}/teams/nope/members/${reader.username}`, { token: admin.token })).status,
    ).toBe(404);
    const members = await call("GET", `/api/orgs/${org.slug}/teams/core/members`, { token: reader.token });
    expect(members.body.members).toEqual([{ user: { id: reader.id, username: reader.username } }]);

    expect(
      (await call("DELETE", `/api/orgs/${org.slug}/members/${reader.username}`, { token: admin.token })).body,
    ).toEqual({ removed: true });
    expect(
      (await call("GET", `/api/orgs/${org.slug}/teams/core/members`, { token: admin.token })).body.members,
    ).toEqual([]);

    expect((await call("DELETE", `/api/orgs/${org.slug}/teams/core`, { token: admin.token })).body).toEqual({
      deleted: true,
    });
    expect((await call("GET", `/api/orgs/${org.slug}/teams`, { token: admin.token })).body.teams).toEqual([]);
    expect(await auditActions(`org:${org.slug}`)).toEqual(
      expect.arrayContaining(["org.team.created", "org.team.member.added", "org.team.deleted"]),
    );
  });
});
