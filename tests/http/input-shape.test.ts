import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment();

describe("a JSON body must be an object", () => {
  it.each([["[]"], ["123"], ['"x"'], ["null"], ["true"]])(
    "POST /api/agents with %s is a 400 and creates nothing",
    async (raw) => {
      const alice = await createTestUser();
      const res = await call("POST", "/api/agents", { token: alice.token, body: raw });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "Request body must be a JSON object", code: "VALIDATION_ERROR" });
      expect((await call("GET", "/api/agents", { token: alice.token })).body.agents).toEqual([]);
    },
  );

  it("PATCH of an issue with a number is a 400, not a silent no-op", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "shape" });
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "t" },
    });
    expect(issue.status).toBe(201);
    const res = await call("PATCH", `/api/projects/${project.path}/issues/${issue.body.issue.number}`, {
      token: alice.token,
      body: "123",
    });
    expect(res.status).toBe(400);
  });

  it("an empty body is still an empty object", async () => {
    const alice = await createTestUser();
    const res = await call("POST", "/api/agents", { token: alice.token, body: "" });
    expect(res.status).toBe(201);
  });
});

describe("booleans take only the documented values", () => {
  it.each([[1], [0], ["1"], ["yes"], [null]])("merge-batch force: %j is a 400", async (force) => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "flags" });
    const res = await call("POST", `/api/projects/${project.path}/changes/merge-batch`, {
      token: alice.token,
      body: { changeIds: ["chg_x"], force },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });

  it("merge ?force=1 is a 400; ?force=false is accepted", async () => {
    const alice = await createTestUser();
    const bad = await call("POST", "/api/changes/chg_missing/merge?force=1", { token: alice.token });
    expect(bad.status).toBe(400);
    const good = await call("POST", "/api/changes/chg_missing/merge?force=false", { token: alice.token });
    expect(good.status).toBe(404);
  });
});

describe("NUL characters in text a database column would hold", () => {
  it("a commit message with NUL is a 400 and the workspace keeps its tip", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "nul" });
    const fork = await call("POST", `/api/workspaces/${project.path}/workspaces`, {
      token: alice.token,
      body: { name: "w" },
    });
    expect(fork.status).toBe(201);
    const res = await call("POST", "/api/workspaces/w/commit", {
      token: alice.token,
      body: { projectId: project.id, message: "a\u0000b", files: { "a.txt": "a" } },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    const change = await call("POST", `/api/projects/${project.path}/changes`, {
      token: alice.token,
      body: { workspace: "w" },
    });
    expect(change.status).not.toBeGreaterThanOrEqual(500);
  });

  it("an org name with NUL is a 400", async () => {
    const alice = await createTestUser();
    const res = await call("POST", "/api/projects", { token: alice.token, body: { name: "p", org: "o\u0000" } });
    expect([res.status, res.body.code]).toEqual([400, "VALIDATION_ERROR"]);
  });
});

describe("unpaired UTF-16 surrogates in names that become refs", () => {
  const UNPAIRED = ["x\udc00y", "\ud800", "a\ud800"];

  it("a tag or branch name, start point or target holding one is a 400, and no ref is created", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "surrogates" });
    const base = `/api/projects/${project.path}`;
    const bodies = UNPAIRED.flatMap((bad): Array<[string, Record<string, string>]> => [
      ["tags", { name: bad }],
      ["tags", { name: bad, message: "annotated" }],
      ["tags", { name: "v1", target: bad }],
      ["branches", { name: bad }],
      ["branches", { name: "copy", startPoint: bad }],
    ]);
    for (const [route, body] of bodies) {
      const res = await call("POST", `${base}/${route}`, { token: alice.token, body });
      expect([res.status, res.body.code], `${route} ${JSON.stringify(body)}`).toEqual([400, "VALIDATION_ERROR"]);
    }
    expect(
      (await call("GET", `${base}/branches`, { token: alice.token })).body.branches.map(
        (branch: { name: string }) => branch.name,
      ),
    ).toEqual(["main"]);
    expect((await call("GET", `${base}/tags`, { token: alice.token })).body.tags).toEqual([]);
  });
});
