import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

/** issues.timeline has no REST route: the issue page reads it in-process, typed callers through /api/trpc. */
const timeline = (token: string | undefined, path: string, number: number) => {
  const [namespace, slug] = path.split("/");
  return call(
    "GET",
    `/api/trpc/issues.timeline?input=${encodeURIComponent(JSON.stringify({ namespace, slug, number }))}`,
    { token },
  );
};

describe("an issue's timeline", () => {
  it("lists opened, labels added and removed, assignee set and cleared, closed, reopened, and closed by a merged change, oldest first", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const base = `/api/projects/${project.path}/issues`;
    const { number } = (await call("POST", base, { token: alice.token, body: { title: "Track me" } })).body.issue;
    const patch = (body: Record<string, unknown>) => call("PATCH", `${base}/${number}`, { token: alice.token, body });
    expect((await patch({ labels: ["bug", "ui"] })).status).toBe(200);
    expect((await patch({ labels: ["bug", "docs"], assignee: alice.id })).status).toBe(200);
    expect((await patch({ title: "Track me well" })).status).toBe(200);
    expect((await patch({ assignee: null })).status).toBe(200);
    expect((await call("POST", `${base}/${number}/close`, { token: alice.token })).status).toBe(302);
    expect((await call("POST", `${base}/${number}/close`, { token: alice.token })).status).toBe(302);
    const { change } = await changeWith(alice.token, project, { "fix.txt": "fixed\n" });
    expect((await patch({ linkedChangeId: change.id })).status).toBe(200);
    expect((await merge(alice.token, change.id)).status).toBe(200);

    const res = await timeline(alice.token, project.path, number);
    expect(res.status).toBe(200);
    const entries = res.body.result.data.entries;
    const actor = `user:${alice.id}`;
    expect(
      entries.map((e: Record<string, unknown>) => [e.kind, e.actor, e.added, e.removed, e.assignee, e.changeId]),
    ).toEqual([
      ["issue.opened", actor, [], [], null, null],
      ["issue.labeled", actor, ["bug", "ui"], [], null, null],
      ["issue.labeled", actor, ["docs"], ["ui"], null, null],
      ["issue.assigned", actor, [], [], alice.id, null],
      ["issue.assigned", actor, [], [], null, null],
      ["issue.closed", actor, [], [], null, null],
      ["issue.reopened", actor, [], [], null, null],
      ["issue.linked", actor, [], [], null, change.id],
      ["issue.closed", "system", [], [], null, change.id],
    ]);
  }, 120_000);

  it("is refused like the issue: 404 to those who cannot read the project or for an unknown issue", async () => {
    const alice = await createTestUser();
    const mallory = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { number } = (
      await call("POST", `/api/projects/${project.path}/issues`, { token: alice.token, body: { title: "Private" } })
    ).body.issue;
    expect((await timeline(mallory.token, project.path, number)).status).toBe(404);
    expect((await timeline(undefined, project.path, number)).status).toBe(404);
    expect((await timeline(alice.token, project.path, number + 1)).status).toBe(404);
  });
});
