import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment();

const ODD_PATHS = [
  "GIT~1/x",
  ".git./x",
  ".git /x",
  ".g\u200cit/x",
  "a\\b",
  "src/.GIT/config",
  "x/.git::$INDEX_ALLOCATION/y",
];

describe("names git would refuse never enter a repository", () => {
  it.each(ODD_PATHS)("project creation with %j is a 400 INVALID_PATH", async (file) => {
    const alice = await createTestUser();
    const res = await call("POST", "/api/projects", {
      token: alice.token,
      body: { name: "odd", files: { [file]: "x" } },
    });
    expect([res.status, res.body.code]).toEqual([400, "INVALID_PATH"]);
    expect((await call("GET", `/api/projects/@${alice.username}/odd`, { token: alice.token })).status).toBe(404);
  });

  it("a workspace commit with any of them is a 400, and the workspace keeps working", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "kept", files: { "a.txt": "a" } });
    expect(
      (await call("POST", `/api/workspaces/${project.path}/workspaces`, { token: alice.token, body: { name: "w" } }))
        .status,
    ).toBe(201);
    for (const file of ODD_PATHS) {
      const res = await call("POST", "/api/workspaces/w/commit", {
        token: alice.token,
        body: { projectId: project.id, message: "odd", files: { [file]: "x" } },
      });
      expect([res.status, res.body.code], file).toEqual([400, "INVALID_PATH"]);
    }
    const ok = await call("POST", "/api/workspaces/w/commit", {
      token: alice.token,
      body: { projectId: project.id, message: "fine", files: { "b.txt": "b" } },
    });
    expect(ok.status).toBe(201);
    const change = await call("POST", `/api/projects/${project.path}/changes`, {
      token: alice.token,
      body: { workspace: "w" },
    });
    expect(change.status).toBe(201);
    const merged = await call("POST", `/api/changes/${change.body.change.id}/merge`, { token: alice.token });
    expect(merged.status).toBe(200);
  });
});

describe("reads of a repository that already holds odd names (an import, an old push)", () => {
  it("files, content, log, a workspace commit and a merge on top all work", async () => {
    const { execFileSync } = await import("node:child_process");
    const { openProjectRepo } = await import("@/server/git");
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "legacy", files: { "a.txt": "a" } });
    const gitdir = openProjectRepo(project.id).gitdir;
    const run = (args: string[], input?: string) =>
      execFileSync("git", ["--git-dir", gitdir, ...args], { input })
        .toString()
        .trim();
    const blob = run(["hash-object", "-w", "--stdin"], "x\n");
    const inner = run(["mktree"], `100644 blob ${blob}\tx\n`);
    const root = run(
      ["mktree"],
      `040000 tree ${inner}\tGIT~1\n100644 blob ${blob}\ta.txt\n100644 blob ${blob}\tb\\c\n`,
    );
    const commit = run([
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@t",
      "commit-tree",
      root,
      "-p",
      project.commit,
      "-m",
      "odd",
    ]);
    run(["update-ref", "refs/heads/main", commit]);
    const statuses: Record<string, number> = {};
    for (const path of ["files", "content?path=a.txt", "content?path=GIT~1/x", "log", "branches"]) {
      statuses[path] = (await call("GET", `/api/projects/${project.path}/${path}`, { token: alice.token })).status;
    }
    for (const [path, status] of Object.entries(statuses)) expect(status, path).toBeLessThan(500);
    expect(statuses["content?path=a.txt"]).toBe(200);

    expect(
      (await call("POST", `/api/workspaces/${project.path}/workspaces`, { token: alice.token, body: { name: "w" } }))
        .status,
    ).toBe(201);
    const commitRes = await call("POST", "/api/workspaces/w/commit", {
      token: alice.token,
      body: { projectId: project.id, message: "more", files: { "new.txt": "n" } },
    });
    expect(commitRes.status).toBe(201);
    const change = await call("POST", `/api/projects/${project.path}/changes`, {
      token: alice.token,
      body: { workspace: "w" },
    });
    expect(change.status).toBe(201);
    const merged = await call("POST", `/api/changes/${change.body.change.id}/merge`, { token: alice.token });
    expect(merged.status).toBe(200);
    expect(
      (await call("GET", `/api/projects/${project.path}/content?path=new.txt`, { token: alice.token })).body.value,
    ).toBe("n");
  });
});
