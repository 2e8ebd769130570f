import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";
import { GitClient, startTestServer, withToken, type TestServer } from "./support";

useTestEnvironment();

let server: TestServer;
let git: GitClient;
let dirs = 0;

beforeAll(async () => {
  server = await startTestServer();
  git = new GitClient();
});

afterAll(async () => {
  await server?.close();
  git?.cleanup();
});

describe("git smart HTTP with shared access", () => {
  it("lets a team writer push, a read collaborator clone but not push, and refuses a removed member at once", async () => {
    const [owner, writer, reader] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    const org = `gitorg${Date.now().toString(36)}`;
    expect((await call("POST", "/api/orgs", { token: owner.token, body: { slug: org } })).status).toBe(201);
    await call("PUT", `/api/orgs/${org}/members/${writer.username}`, { token: owner.token, body: { role: "read" } });
    await call("POST", `/api/orgs/${org}/teams`, { token: owner.token, body: { slug: "devs" } });
    await call("PUT", `/api/orgs/${org}/teams/devs/members/${writer.username}`, { token: owner.token });
    const project = await createTestProject(owner.token, { name: "shared", org, files: { "README.md": "hi\n" } });
    await call("PUT", `/api/orgs/${org}/teams/devs/projects/shared`, {
      token: owner.token,
      body: { permission: "write" },
    });
    await call("PUT", `/api/projects/${project.path}/collaborators/${reader.username}`, {
      token: owner.token,
      body: { permission: "read" },
    });

    const writerClone = git.dir(`w${++dirs}`);
    await git.ok(["clone", "-q", withToken(project.remote, writer.token), writerClone]);
    const oid = await git.commit(writerClone, { "team.txt": "from the team\n" }, "team work");
    await git.ok(["push", "-q", "origin", `${oid}:refs/heads/team`], { cwd: writerClone });

    const readerClone = git.dir(`r${++dirs}`);
    await git.ok(["clone", "-q", withToken(project.remote, reader.token), readerClone]);
    const readerOid = await git.commit(readerClone, { "r.txt": "r\n" }, "reader work");
    const refused = await git.run(["push", "-q", "origin", `${readerOid}:refs/heads/reader`], { cwd: readerClone });
    expect(refused.code).not.toBe(0);
    // A push without write access is a plain 404, as for a read token (authorizeGit).
    expect(refused.stderr).toMatch(/Repository not found/);

    expect((await call("DELETE", `/api/orgs/${org}/members/${writer.username}`, { token: owner.token })).status).toBe(
      200,
    );
    const next = await git.commit(writerClone, { "team.txt": "again\n" }, "after removal");
    const afterRemoval = await git.run(["push", "-q", "origin", `${next}:refs/heads/team`], { cwd: writerClone });
    expect(afterRemoval.code).not.toBe(0);
    const fetchAfter = await git.run(["fetch", "-q", "origin"], { cwd: writerClone });
    expect(fetchAfter.code).not.toBe(0);

    const refs = await git.ok(["ls-remote", withToken(project.remote, owner.token)]);
    expect(refs).toContain(`${oid}\trefs/heads/team`);
    expect(refs).not.toContain("refs/heads/reader");
  });
});
