import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, commitTo, eventsOf, projectWith, propose, workspaceOf } from "@/server/changes/test-fixtures";

useTestEnvironment();

describe("change numbers", () => {
  it("count on their own from 1 (issues keep theirs, the spec's), and a change is read by its number as by its id", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "first" },
    });
    expect(issue.body.issue.number).toBe(1);
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect(change.number).toBe(1);
    const next = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "second" },
    });
    expect(next.body.issue.number).toBe(2);
    const { change: another } = await changeWith(alice.token, project, { "b.txt": "b\n" });
    expect(another.number).toBe(2);

    const byNumber = await call("GET", `/api/projects/${project.path}/changes/1`, { token: alice.token });
    expect(byNumber.status).toBe(200);
    const byId = await call("GET", `/api/changes/${change.id}`, { token: alice.token });
    expect(byNumber.body.change).toEqual(byId.body.change);
    expect(byId.body.change.number).toBe(1);
    const [created] = await eventsOf(project.id, "change.created");
    expect(created.data).toMatchObject({ changeId: change.id, number: 1, title: change.title });
  });

  it("answers 404 for an unknown number (an issue's is not a change's), 400 for what is no number, 404 to who cannot read", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await call("POST", `/api/projects/${project.path}/issues`, { token: alice.token, body: { title: "one" } });
    await call("POST", `/api/projects/${project.path}/issues`, { token: alice.token, body: { title: "two" } });
    await changeWith(alice.token, project, { "a.txt": "a\n" });
    const base = `/api/projects/${project.path}/changes`;
    expect((await call("GET", `${base}/2`, { token: alice.token })).status).toBe(404);
    expect((await call("GET", `${base}/99`, { token: alice.token })).status).toBe(404);
    for (const bad of ["0", "-1", "x", "99999999999"]) {
      const res = await call("GET", `${base}/${bad}`, { token: alice.token });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
    expect((await call("GET", `${base}/1`, { token: alice.token })).status).toBe(200);
    expect((await call("GET", `${base}/1`, { token: bob.token })).status).toBe(404);
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
    const sorted = (numbers: number[]) => numbers.sort((a, b) => a - b);
    expect(sorted(changes.map((res) => res.body.change.number as number))).toEqual([1, 2, 3, 4]);
    expect(sorted(issues.map((res) => res.body.issue.number as number))).toEqual([1, 2, 3, 4]);
  });
});
