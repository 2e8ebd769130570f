import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { db } from "@/server/db/client";
import {
  branchRef,
  listFiles,
  log,
  openProjectRepo,
  openWorkspaceRepo,
  readCommit,
  readFile,
  readRef,
} from "@/server/git";
import { WORKSPACE_COMMIT_BYTES_MAX } from "@/server/limits";
import { findProjectAlongside } from "@/server/projects";
import { createTestProject, grantCollaborator } from "@/server/projects/test-fixtures";
import { workspaceAlongside } from "./service";

useTestEnvironment();

async function setup(visibility: "private" | "public" = "private") {
  const owner = await createTestUser();
  const project = await createTestProject(owner.token, {
    name: "proj",
    visibility,
    files: { "README.md": "r", "src/keep.ts": "k", "src/drop.ts": "d" },
  });
  return { owner, project, collection: `/api/workspaces/@${owner.username}/proj/workspaces` };
}

async function createWorkspace(collection: string, token: string, name?: string) {
  const res = await call("POST", collection, { token, body: name ? { name } : {} });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.workspace as string;
}

describe("POST/GET /api/workspaces/{namespace}/{slug}/workspaces", () => {
  it("forks at the default branch tip and answers the create shape", async () => {
    const { owner, project, collection } = await setup();
    const res = await call("POST", collection, { token: owner.token, body: { name: "ws1" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      workspace: "ws1",
      remote: `http://svc.test/@${owner.username}/proj/workspaces/ws1.git`,
      namespace: owner.username,
      slug: "proj",
      path: project.path,
    });
    const fork = openWorkspaceRepo(project.id, "ws1");
    expect(readRef(fork, branchRef("main"))).toBe(project.commit);
    const event = await (
      await db()
    ).domainEvent.findFirst({ where: { projectId: project.id, kind: "workspace.created" } });
    expect(event).toMatchObject({ actor: `user:${owner.id}`, data: { workspace: "ws1", commit: project.commit } });
  });

  it("generates ws-<timestamp> names; 400 bad name; 409 taken", async () => {
    const { owner, collection } = await setup();
    const generated = await Promise.all([1, 2, 3].map(() => createWorkspace(collection, owner.token)));
    for (const name of generated) expect(name).toMatch(/^ws-\d+$/);
    expect(new Set(generated).size).toBe(3);
    for (const name of ["has space", "", "x".repeat(65), "a/b"]) {
      expect((await call("POST", collection, { token: owner.token, body: { name } })).status, name).toBe(400);
    }
    await createWorkspace(collection, owner.token, "dup");
    const dup = await call("POST", collection, { token: owner.token, body: { name: "dup" } });
    expect(dup.status).toBe(409);
  });

  it("writers only: 403 for readers, 404 for strangers, 401 anonymous; agents may", async () => {
    const { owner, project, collection } = await setup();
    const reader = await createTestUser();
    const stranger = await createTestUser();
    await grantCollaborator(project.id, reader.id, "read");
    expect((await call("POST", collection, { token: reader.token, body: {} })).status).toBe(403);
    expect((await call("POST", collection, { token: stranger.token, body: {} })).status).toBe(404);
    expect((await call("POST", collection, { body: {} })).status).toBe(401);
    expect(
      (await call("POST", `/api/workspaces/@${owner.username}/missing/workspaces`, { token: owner.token, body: {} }))
        .status,
    ).toBe(404);
    const agent = await call("POST", "/api/agents", { token: owner.token, body: { name: "bot" } });
    expect(agent.status).toBe(201);
    const byAgent = await call("POST", collection, { token: agent.body.token, body: { name: "agentws" } });
    expect(byAgent.status).toBe(201);
  });

  it("lists workspaces; anonymous on public projects; 404 on private ones", async () => {
    const { owner, project, collection } = await setup("public");
    await createWorkspace(collection, owner.token, "a");
    await createWorkspace(collection, owner.token, "b");
    const res = await call("GET", collection);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ namespace: owner.username, slug: "proj", path: project.path });
    expect(res.body.workspaces.map((w: { name: string }) => w.name)).toEqual(["a", "b"]);
    expect(res.body.workspaces[0].remote).toBe(`http://svc.test/@${owner.username}/proj/workspaces/a.git`);
    const priv = await setup("private");
    expect((await call("GET", priv.collection)).status).toBe(404);
    expect((await call("GET", priv.collection, { token: priv.owner.token })).status).toBe(200);
  });
});

describe("POST /api/workspaces/{name}/commit", () => {
  it("writes one commit with nested paths and deletions, leaving the project untouched", async () => {
    const { owner, project, collection } = await setup();
    await createWorkspace(collection, owner.token, "w");
    const res = await call("POST", "/api/workspaces/w/commit", {
      token: owner.token,
      body: {
        projectId: project.id,
        message: "work",
        files: { "src/new/deep.ts": "deep", "src/drop.ts": null, "README.md": "changed" },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ workspace: "w", projectId: project.id, branch: "main", parent: project.commit });
    const fork = openWorkspaceRepo(project.id, "w");
    expect(readRef(fork, branchRef("main"))).toBe(res.body.commit);
    expect(await listFiles(fork, res.body.commit)).toEqual(["README.md", "src/keep.ts", "src/new/deep.ts"]);
    expect(await readFile(fork, res.body.commit, "README.md")).toEqual({ kind: "content", value: "changed" });
    const commit = await readCommit(fork, res.body.commit);
    expect(commit.author).toMatchObject({ name: owner.username });
    expect(commit.message).toBe("work\n");
    expect(readRef(openProjectRepo(project.id), branchRef("main"))).toBe(project.commit);
  });

  it("records an agent as author and its owner as committer", async () => {
    const { owner, project, collection } = await setup();
    const agent = await call("POST", "/api/agents", { token: owner.token, body: { name: "robo" } });
    const name = (await call("POST", collection, { token: agent.body.token, body: { name: "aw" } })).body.workspace;
    const res = await call("POST", `/api/workspaces/${name}/commit`, {
      token: agent.body.token,
      body: { projectId: project.id, message: "by agent", files: { "a.txt": "a" } },
    });
    expect(res.status).toBe(201);
    const commit = await readCommit(openWorkspaceRepo(project.id, "aw"), res.body.commit);
    expect(commit.author.name).toBe(`robo (agent of ${owner.username})`);
    expect(commit.author.email).toContain(agent.body.agent.id);
    expect(commit.committer.name).toBe(owner.username);
  });

  it("every access failure is 404: unknown project or workspace, readers, writers who did not create it", async () => {
    const { owner, project, collection } = await setup();
    await createWorkspace(collection, owner.token, "mine");
    const reader = await createTestUser();
    const writer = await createTestUser();
    const admin = await createTestUser();
    const stranger = await createTestUser();
    await grantCollaborator(project.id, reader.id, "read");
    await grantCollaborator(project.id, writer.id, "write");
    await grantCollaborator(project.id, admin.id, "admin");
    const body = { projectId: project.id, message: "m", files: { "x.txt": "x" } };
    for (const token of [reader.token, writer.token, stranger.token]) {
      expect((await call("POST", "/api/workspaces/mine/commit", { token, body })).status).toBe(404);
    }
    expect((await call("POST", "/api/workspaces/other/commit", { token: owner.token, body })).status).toBe(404);
    expect(
      (
        await call("POST", "/api/workspaces/mine/commit", {
          token: owner.token,
          body: { ...body, projectId: "not-a-uuid" },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call("POST", "/api/workspaces/mine/commit", {
          token: owner.token,
          body: { ...body, projectId: "00000000-0000-4000-8000-000000000000" },
        })
      ).status,
    ).toBe(404);
    expect((await call("POST", "/api/workspaces/mine/commit", { body })).status).toBe(401);
    // the writer's own workspace and a project admin on anyone's are fine
    const writersOwn = await createWorkspace(collection, writer.token, "theirs");
    expect((await call("POST", `/api/workspaces/${writersOwn}/commit`, { token: writer.token, body })).status).toBe(
      201,
    );
    expect((await call("POST", "/api/workspaces/mine/commit", { token: admin.token, body })).status).toBe(201);
  });

  it("validates: 400 for missing fields and bad paths, 413 past 2000 files or 25 MiB", async () => {
    const { owner, project, collection } = await setup();
    await createWorkspace(collection, owner.token, "v");
    const url = "/api/workspaces/v/commit";
    for (const body of [
      { projectId: project.id, files: {} },
      { projectId: project.id, message: "m" },
      { message: "m", files: {} },
      { projectId: project.id, message: "m", files: { a: 1 } },
    ]) {
      expect((await call("POST", url, { token: owner.token, body })).status, JSON.stringify(body)).toBe(400);
    }
    const badPath = await call("POST", url, {
      token: owner.token,
      body: { projectId: project.id, message: "m", files: { "../etc/passwd": "x" } },
    });
    expect(badPath).toMatchObject({ status: 400, body: { code: "INVALID_PATH" } });
    const many = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`f/${i}.txt`, "x"]));
    const tooMany = await call("POST", url, {
      token: owner.token,
      body: { projectId: project.id, message: "m", files: many },
    });
    expect(tooMany).toMatchObject({ status: 413, body: { code: "PAYLOAD_TOO_LARGE" } });
    const huge = await call("POST", url, {
      token: owner.token,
      body: { projectId: project.id, message: "m", files: { "big.txt": "z".repeat(WORKSPACE_COMMIT_BYTES_MAX + 1) } },
    });
    expect(huge).toMatchObject({ status: 413, body: { code: "PAYLOAD_TOO_LARGE" } });
    const exactly = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`f/${i}.txt`, "x"]));
    expect(
      (await call("POST", url, { token: owner.token, body: { projectId: project.id, message: "m", files: exactly } }))
        .status,
    ).toBe(201);
  });

  it("concurrent commits to one workspace all land in its history", async () => {
    const { owner, project, collection } = await setup();
    await createWorkspace(collection, owner.token, "busy");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call("POST", "/api/workspaces/busy/commit", {
          token: owner.token,
          body: { projectId: project.id, message: `c${i}`, files: { [`c${i}.txt`]: `${i}` } },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const fork = openWorkspaceRepo(project.id, "busy");
    const history = (await log(fork, readRef(fork, branchRef("main"))!, 50)).map((e) => e.sha);
    for (const r of results) expect(history).toContain(r.body.commit);
    expect(history).toHaveLength(9);
    // Each commit's push event was recorded with its move: the events chain from the fork point to the tip.
    const pushes = await (
      await db()
    ).domainEvent.findMany({ where: { projectId: project.id, kind: "push" }, orderBy: { seq: "asc" } });
    const moves = pushes.map((event) => event.data as { before: string; after: string; workspace: string });
    expect(moves).toHaveLength(8);
    expect(moves.every((move) => move.workspace === "busy")).toBe(true);
    expect(moves[0].before).toBe(project.commit);
    for (let i = 1; i < moves.length; i++) expect(moves[i].before).toBe(moves[i - 1].after);
    expect(moves.at(-1)!.after).toBe(history[0]);
  });

  it("409 TARGET_DELETING once the project's deletion is accepted", async () => {
    const { owner, project, collection } = await setup();
    await createWorkspace(collection, owner.token, "late");
    await call("DELETE", `/api/projects/@${owner.username}/proj`, {
      token: owner.token,
      body: { confirm: project.path },
    });
    const res = await call("POST", "/api/workspaces/late/commit", {
      token: owner.token,
      body: { projectId: project.id, message: "m", files: { "a.txt": "a" } },
    });
    expect(res).toMatchObject({ status: 409, body: { code: "TARGET_DELETING" } });
  });
});

// Commits and new changes read the project and the workspace in one statement: the rows must be the client's.
describe("a project and its workspace read together", () => {
  it("gives both rows exactly as the client reads them, by id or by path; null for what does not exist", async () => {
    const { owner, project, collection } = await setup();
    const name = await createWorkspace(collection, owner.token, "together");
    const prisma = await db();
    // Every timestamp column set, one of them on a whole second (JSON drops its fraction).
    await prisma.project.update({
      where: { id: project.id },
      data: { deletingAt: new Date("2026-01-02T03:04:05.000Z") },
    });
    const expected = {
      project: await prisma.project.findUniqueOrThrow({ where: { id: project.id } }),
      alongside: await prisma.workspace.findUniqueOrThrow({
        where: { projectId_name: { projectId: project.id, name } },
      }),
    };
    expect(await findProjectAlongside({ id: project.id }, workspaceAlongside(name))).toEqual(expected);
    expect(await findProjectAlongside({ namespace: owner.username, slug: "proj" }, workspaceAlongside(name))).toEqual(
      expected,
    );
    expect(await findProjectAlongside({ id: project.id }, workspaceAlongside("missing"))).toEqual({
      project: expected.project,
      alongside: null,
    });
    expect(
      await findProjectAlongside({ id: "00000000-0000-4000-8000-000000000000" }, workspaceAlongside(name)),
    ).toEqual({ project: null, alongside: null });
    expect(await findProjectAlongside({ id: "not-a-uuid" }, workspaceAlongside(name))).toEqual({
      project: null,
      alongside: null,
    });
  });
});
