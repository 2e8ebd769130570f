import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment();

const ODD_PATHS = ["GIT~1/x", ".git./x", ".git /x", ".g\u200cit/x", "a\\b", "src/.GIT/config", "x/.git::$INDEX_ALLOCATION/y"];

describe("names git would refuse never enter a repository", () => {
  it.each(ODD_PATHS)("project creation with %j is a 400 INVALID_PATH", async (file) => {
    const alice = await createTestUser();
    const res = await call("POST", "/api/projects", { token: alice.token, body: { name: "odd", files: { [file]: "x" } } });
    expect([res.status, res.body.code]).toEqual([400, "INVALID_PATH"]);
    expect((await call("GET", `/api/projects/@${alice.username}/odd`, { token: alice.token })).status).toBe(404);
  });

  it("a workspace commit with any of them is a 400, and the workspace keeps working", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "kept", files: { "a.txt": "a" } });
    expect((await call("POST", `/api/workspaces/${project.path}/workspaces`, { token: alice.token, body: { name: "w" } })).status).toBe(201);
    for (const file of ODD_PATHS) {
      const res = await call("POST", "/api/workspaces/w/commit", { token: alice.token, body: { projectId: project.id, message: "odd", files: { [file]: "x" } } });
      expect([res.status, res.body.code], file).toEqual([400, "INVALID_PATH"]);
    }
    const ok = await call("POST", "/api/workspaces/w/commit", { token: alice.token, body: { projectId: project.id, message: "fine", files: { "b.txt": "b" } } });
    expect(ok.status).toBe(201);
    const change = await call("POST", `/api/projects/${project.path}/changes`, { token: alice.token, body: { workspace: "w" } });
    expect(change.status).toBe(201);
    const merged = await call("POST", `/api/changes/${change.body.change.id}/merge`, { token: alice.token });
    expect(merged.status).toBe(200);
  });
});
