import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, commitTo, eventsOf, projectWith, propose, workspaceOf } from "@/server/changes/test-fixtures";

useTestEnvironment();

describe("change numbers", () => {
  it("share the project's index with issues, and a change is read by its number as by its id", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "first" },
    });
    expect(issue.body.issue.number).toBe(1);
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect(change.number).toBe(2);
    const next = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "third" },
    });
    expect(next.body.issue.number).toBe(3);

    const byNumber = await call("GET", `/api/projects/${project.path}/changes/2`, { token: alice.token });
    expect(byNumber.status).toBe(200);
    const byId = await call("GET", `/api/changes/${change.id}`, { token: alice.token });
    expect(byNumber.body.change).toEqual(byId.body.change);
    expect(byId.body.change.number).toBe(2);
    const [created] = await eventsOf(project.id, "change.created");
    expect(created.data).toMatchObject({ changeId: change.id, number: 2, title: change.title });
  });

  it("answers 404 for an issue's number or an unknown one, 400 for what is no number, 404 to who cannot read", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await call("POST", `/api/projects/${project.path}/issues`, { token: alice.token, body: { title: "one" } });
    await changeWith(alice.token, project, { "a.txt": "a\n" });
    const base = `/api/projects/${project.path}/changes`;
    expect((await call("GET", `${base}/1`, { token: alice.token })).status).toBe(404);
    expect((await call("GET", `${base}/99`, { token: alice.token })).status).toBe(404);
    for (const bad of ["0", "-1", "x", "99999999999"]) {
      const res = await call("GET", `${base}/${bad}`, { token: alice.token });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
    expect((await call("GET", `${base}/2`, { token: bob.token })).status).toBe(404);
  });

  it("gives concurrent creations distinct numbers", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const workspaces = [];
    for (let i = 0; i < 4; i++) {
      const workspace = await workspaceOf(alice.token, project);
      await commitTo(alice.token, project, workspace, { [`f${i}.txt`]: `${i}\n` });
      workspaces.push(workspace);
    }
    const [changes, issues] = await Promise.all([
      Promise.all(workspaces.map((workspace) => propose(alice.token, project, workspace))),
      Promise.all(
        workspaces.map((_, i) =>
          call("POST", `/api/projects/${project.path}/issues`, { token: alice.token, body: { title: `i${i}` } }),
        ),
      ),
    ]);
    const numbers = [
      ...changes.map((res) => res.body.change.number as number),
      ...issues.map((res) => res.body.issue.number as number),
    ].sort((a, b) => a - b);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
