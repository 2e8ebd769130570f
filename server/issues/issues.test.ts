import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestAgent, createTestChange, createTestProject, type TestUser } from "./test-fixtures";

useTestEnvironment();

let owner: TestUser;
let writer: TestUser;
let reader: TestUser;
let stranger: TestUser;
let project: Awaited<ReturnType<typeof createTestProject>>;
let publicProject: Awaited<ReturnType<typeof createTestProject>>;
let agent: { id: string; token: string };

beforeAll(async () => {
  [owner, writer, reader, stranger] = [
    await createTestUser(),
    await createTestUser(),
    await createTestUser(),
    await createTestUser(),
  ];
  project = await createTestProject(owner, {
    collaborators: [
      { user: writer, role: "write" },
      { user: reader, role: "read" },
    ],
  });
  publicProject = await createTestProject(owner, { visibility: "public" });
  agent = await createTestAgent(owner);
});

const open = (base: string, token: string, body: Record<string, unknown>) =>
  call("POST", `${base}/issues`, { token, body });

describe("POST /issues", () => {
  it("opens issue #1, #2 ... with the author recorded and issue.opened in the activity", async () => {
    const first = await open(project.base, owner.token, { title: "First", body: "hello" });
    expect(first.status).toBe(201);
    expect(first.body.issue).toMatchObject({
      number: 1,
      title: "First",
      body: "hello",
      status: "open",
      labels: [],
      assignee: null,
      linkedChangeId: null,
      author: `user:${owner.id}`,
    });
    const second = await open(project.base, reader.token, { title: "Second" });
    expect(second.body.issue).toMatchObject({ number: 2, body: "", author: `user:${reader.id}` });
    const activity = await call("GET", `${project.base}/activity`, { token: owner.token });
    expect(activity.body.events[0]).toMatchObject({
      kind: "issue.opened",
      actor: `user:${reader.id}`,
      data: { number: 2, title: "Second" },
    });
  });

  it("lets agents open issues (attributed to the agent)", async () => {
    const res = await open(project.base, agent.token, { title: "From an agent" });
    expect(res.status).toBe(201);
    expect(res.body.issue.author).toBe(`agent:${agent.id}`);
  });

  it("lets any signed-in user open an issue on a public project, but not anonymous callers", async () => {
    expect((await open(publicProject.base, stranger.token, { title: "Outsider" })).status).toBe(201);
    const anonymous = await call("POST", `${publicProject.base}/issues`, { body: { title: "x" } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBeUndefined();
  });

  it("answers a form caller with 302 to the new issue's page", async () => {
    const res = await call("POST", `${project.base}/issues`, {
      token: owner.token,
      form: { title: "From a form", body: "b" },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(new RegExp(`^/@${owner.username}/${project.slug}/issues/\\d+$`));
  });

  it("hides private projects from non-readers and unknown projects with 404", async () => {
    expect((await open(project.base, stranger.token, { title: "x" })).status).toBe(404);
    expect((await open(`/api/projects/@${owner.username}/nope`, owner.token, { title: "x" })).status).toBe(404);
  });

  it("validates title, body and linkedChangeId", async () => {
    for (const body of [
      {},
      { title: "" },
      { title: "   " },
      { title: "t".repeat(201) },
      { title: "t", body: "b".repeat(20_001) },
      { title: "t", linkedChangeId: "not-a-uuid" },
      { title: "a\u0000b" },
      { title: "t", body: "\u0000" },
    ]) {
      const res = await open(project.base, owner.token, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.error).toBeTruthy();
    }
    expect((await open(project.base, owner.token, { title: "t".repeat(200), body: "b".repeat(20_000) })).status).toBe(
      201,
    );
    const otherChange = await createTestChange(publicProject.id);
    const foreign = await open(project.base, owner.token, { title: "t", linkedChangeId: otherChange.id });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatch(/linkedChangeId/);
    const change = await createTestChange(project.id);
    const linked = await open(project.base, owner.token, { title: "t", linkedChangeId: change.id });
    expect(linked.status).toBe(201);
    expect(linked.body.issue.linkedChangeId).toBe(change.id);
  });

  it("refuses new issues and comments with 409 TARGET_DELETING while the project is being deleted", async () => {
    const doomed = await createTestProject(owner);
    const existing = await open(doomed.base, owner.token, { title: "before" });
    await (await db()).project.update({ where: { id: doomed.id }, data: { deletingAt: new Date() } });
    const res = await open(doomed.base, owner.token, { title: "after" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("TARGET_DELETING");
    const comment = await call("POST", `${doomed.base}/issues/${existing.body.issue.number}/comments`, {
      token: owner.token,
      body: { body: "x" },
    });
    expect(comment.body.code).toBe("TARGET_DELETING");
  });
});

describe("GET /issues", () => {
  let base: string;
  beforeAll(async () => {
    const listed = await createTestProject(owner, { visibility: "public" });
    base = listed.base;
    const titles = ["Crash on 100% CPU", "crash in parser", "Docs typo", "under_score name", "plain"];
    for (const title of titles)
      await open(base, owner.token, { title, body: title === "plain" ? "mentions CRASH in the body" : "" });
    await call("PATCH", `${base}/issues/1`, {
      token: owner.token,
      body: { labels: ["bug", "p1"], assignee: writer.id },
    });
    await call("PATCH", `${base}/issues/2`, { token: owner.token, body: { labels: ["bug"], status: "closed" } });
  });

  const numbers = async (query: string, token?: string) => {
    const res = await call("GET", `${base}/issues${query}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.issues.map((issue: { number: number }) => issue.number);
  };

  it("lists newest first by number, anonymously on a public project", async () => {
    expect(await numbers("")).toEqual([5, 4, 3, 2, 1]);
  });

  it("filters by status, exact label and assignee", async () => {
    expect(await numbers("?status=closed")).toEqual([2]);
    expect(await numbers("?status=open")).toEqual([5, 4, 3, 1]);
    expect(await numbers("?label=bug")).toEqual([2, 1]);
    expect(await numbers("?label=bu")).toEqual([]);
    expect(await numbers(`?assignee=${writer.id}`)).toEqual([1]);
    expect(await numbers("?label=bug&status=open")).toEqual([1]);
  });

  it("filters by the author's username, combined with the other filters, and counts comments", async () => {
    const own = await createTestProject(owner, {
      visibility: "public",
      collaborators: [{ user: writer, role: "write" }],
    });
    const list = async (query: string) =>
      (await call("GET", `${own.base}/issues${query}`)).body.issues.map((issue: { number: number }) => issue.number);
    await open(own.base, owner.token, { title: "by the owner" });
    await open(own.base, writer.token, { title: "by the writer" });
    await call("PATCH", `${own.base}/issues/1`, { token: owner.token, body: { labels: ["bug"] } });
    await call("PATCH", `${own.base}/issues/2`, { token: owner.token, body: { labels: ["bug"], assignee: writer.id } });
    await call("POST", `${own.base}/issues/2/comments`, { token: owner.token, body: { body: "one" } });
    await call("POST", `${own.base}/issues/2/comments`, { token: writer.token, body: { body: "two" } });
    expect(await list(`?author=${writer.username}`)).toEqual([2]);
    expect(await list(`?author=${owner.username}&label=bug`)).toEqual([1]);
    expect(await list(`?author=${writer.username}&label=bug&assignee=${writer.id}&status=open`)).toEqual([2]);
    expect(await list(`?author=${writer.username}&status=closed`)).toEqual([]);
    expect(await list("?author=nobody-here")).toEqual([]);
    expect((await call("GET", `${own.base}/issues?author=${encodeURIComponent("not a name")}`)).status).toBe(400);
    const listed = (await call("GET", `${own.base}/issues`)).body.issues;
    expect(listed.map((issue: { comments: number }) => issue.comments)).toEqual([2, 0]);
    // The label and assignee pickers' reads (tRPC only).
    const input = encodeURIComponent(JSON.stringify({ namespace: `@${own.namespace}`, slug: own.slug }));
    const labels = await call("GET", `/api/trpc/issues.labels?input=${input}`);
    expect(labels.body.result?.data.labels, JSON.stringify(labels.body)).toEqual(["bug"]);
    const assignees = await call("GET", `/api/trpc/projectAccess.assignees?input=${input}`);
    expect(assignees.body.result.data.users.map((user: { username: string }) => user.username).sort()).toEqual(
      [owner.username, writer.username].sort(),
    );
  });

  it("searches title and body case-insensitively with % and _ taken literally", async () => {
    expect(await numbers("?q=crash")).toEqual([5, 2, 1]);
    expect(await numbers(`?q=${encodeURIComponent("100%")}`)).toEqual([1]);
    expect(await numbers(`?q=${encodeURIComponent("%")}`)).toEqual([1]);
    expect(await numbers("?q=_")).toEqual([4]);
    expect(await numbers(`?q=${encodeURIComponent("s_t")}`)).toEqual([]);
    expect(await numbers(`?q=${encodeURIComponent("c%p")}`)).toEqual([]);
    expect((await call("GET", `${base}/issues?q=${"a".repeat(201)}`)).status).toBe(400);
    expect((await call("GET", `${base}/issues?q=%00`)).status).toBe(400);
    expect((await call("GET", `${base}/issues?label=%00`)).status).toBe(400);
    expect(await numbers(`?q=${"a".repeat(200)}`)).toEqual([]);
  });

  it("pages with limit and offset within bounds", async () => {
    expect(await numbers("?limit=2")).toEqual([5, 4]);
    expect(await numbers("?limit=2&offset=2")).toEqual([3, 2]);
    expect(await numbers("?offset=10")).toEqual([]);
    expect(await numbers("?limit=500")).toHaveLength(5);
    for (const query of ["?limit=0", "?limit=501", "?offset=-1", "?limit=abc", "?status=done", "?assignee=bob"]) {
      expect((await call("GET", `${base}/issues${query}`)).status, query).toBe(400);
    }
  });

  it("defaults to 100 issues per page", async () => {
    const many = await createTestProject(owner);
    for (let i = 0; i < 102; i++) await open(many.base, owner.token, { title: `issue ${i}` });
    const res = await call("GET", `${many.base}/issues`, { token: owner.token });
    expect(res.body.issues).toHaveLength(100);
    expect(res.body.issues[0].number).toBe(102);
  });

  it("hides private projects from anonymous callers and strangers", async () => {
    expect((await call("GET", `${project.base}/issues`)).status).toBe(404);
    expect((await call("GET", `${project.base}/issues`, { token: stranger.token })).status).toBe(404);
    expect((await call("GET", `${project.base}/issues`, { token: reader.token })).status).toBe(200);
  });
});

describe("GET /issues/{number}", () => {
  it("returns one issue, 404 for an unknown number, 400 for a malformed one", async () => {
    const created = await open(publicProject.base, owner.token, { title: "Readable" });
    const res = await call("GET", `${publicProject.base}/issues/${created.body.issue.number}`);
    expect(res.status).toBe(200);
    expect(res.body.issue.title).toBe("Readable");
    expect((await call("GET", `${publicProject.base}/issues/9999`)).status).toBe(404);
    expect((await call("GET", `${publicProject.base}/issues/abc`)).status).toBe(400);
    expect((await call("GET", `${publicProject.base}/issues/0`)).status).toBe(400);
    expect((await call("GET", `${publicProject.base}/issues/2147483648`)).status).toBe(400);
    expect((await call("GET", `${project.base}/issues/1`)).status).toBe(404);
  });
});

describe("PATCH /issues/{number}", () => {
  let number: number;
  const url = () => `${project.base}/issues/${number}`;
  beforeAll(async () => {
    number = (await open(project.base, reader.token, { title: "Editable", body: "original" })).body.issue.number;
  });

  it("writes only the fields present", async () => {
    const res = await call("PATCH", url(), { token: writer.token, body: { title: "Edited" } });
    expect(res.status).toBe(200);
    expect(res.body.issue).toMatchObject({ title: "Edited", body: "original", status: "open" });
    const labelled = await call("PATCH", url(), { token: writer.token, body: { labels: ["a", "b", "a"] } });
    expect(labelled.body.issue).toMatchObject({ title: "Edited", labels: ["a", "b"] });
    const replaced = await call("PATCH", url(), { token: writer.token, body: { labels: ["c"] } });
    expect(replaced.body.issue.labels).toEqual(["c"]);
  });

  it("assigns and unassigns with null; refuses unknown users", async () => {
    const assigned = await call("PATCH", url(), { token: owner.token, body: { assignee: reader.id } });
    expect(assigned.body.issue.assignee).toBe(reader.id);
    const untouched = await call("PATCH", url(), { token: owner.token, body: { body: "new body" } });
    expect(untouched.body.issue.assignee).toBe(reader.id);
    const unknown = await call("PATCH", url(), { token: owner.token, body: { assignee: crypto.randomUUID() } });
    expect(unknown.status).toBe(400);
    const cleared = await call("PATCH", url(), { token: owner.token, body: { assignee: null } });
    expect(cleared.body.issue.assignee).toBeNull();
  });

  it("links a change of the same project; null or an empty string unlinks", async () => {
    const change = await createTestChange(project.id);
    const linked = await call("PATCH", url(), { token: owner.token, body: { linkedChangeId: change.id } });
    expect(linked.body.issue.linkedChangeId).toBe(change.id);
    const foreign = await call("PATCH", url(), {
      token: owner.token,
      body: { linkedChangeId: (await createTestChange(publicProject.id)).id },
    });
    expect(foreign.status).toBe(400);
    expect(
      (await call("PATCH", url(), { token: owner.token, body: { linkedChangeId: "" } })).body.issue.linkedChangeId,
    ).toBeNull();
    await call("PATCH", url(), { token: owner.token, body: { linkedChangeId: change.id } });
    expect(
      (await call("PATCH", url(), { token: owner.token, body: { linkedChangeId: null } })).body.issue.linkedChangeId,
    ).toBeNull();
  });

  it("closes and reopens through status, recording issue.closed once", async () => {
    const closed = await call("PATCH", url(), { token: writer.token, body: { status: "closed" } });
    expect(closed.body.issue).toMatchObject({ status: "closed", closedBy: `user:${writer.id}` });
    expect(closed.body.issue.closedAt).toBeTruthy();
    await call("PATCH", url(), { token: writer.token, body: { status: "closed" } });
    const events = (await call("GET", `${project.base}/activity?limit=200`, { token: owner.token })).body.events;
    expect(
      events.filter(
        (e: { kind: string; data: { number: number } }) => e.kind === "issue.closed" && e.data.number === number,
      ),
    ).toHaveLength(1);
    const reopened = await call("PATCH", url(), { token: writer.token, body: { status: "open" } });
    expect(reopened.body.issue).toMatchObject({ status: "open", closedAt: null, closedBy: null });
  });

  it("validates every field", async () => {
    const bad = [
      { title: "" },
      { title: "t".repeat(201) },
      { body: "b".repeat(20_001) },
      { status: "done" },
      { labels: Array.from({ length: 21 }, (_, i) => `l${i}`) },
      { labels: ["x".repeat(51)] },
      { labels: "bug" },
      { labels: ["a\u0000"] },
      { title: "a\u0000" },
      { assignee: "bob" },
      { linkedChangeId: "nope" },
    ];
    for (const body of bad)
      expect((await call("PATCH", url(), { token: owner.token, body })).status, JSON.stringify(body).slice(0, 50)).toBe(
        400,
      );
    const ok = await call("PATCH", url(), {
      token: owner.token,
      body: { labels: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(50, "x")) },
    });
    expect(ok.status).toBe(200);
  });

  it("needs a user identity (401 for agents and anonymous callers) with write access (403 for readers)", async () => {
    const byAgent = await call("PATCH", url(), { token: agent.token, body: { title: "agent" } });
    expect(byAgent.status).toBe(401);
    expect(byAgent.body.code).toBeUndefined();
    expect((await call("PATCH", url(), { body: { title: "anon" } })).status).toBe(401);
    expect((await call("PATCH", url(), { token: reader.token, body: { title: "reader" } })).status).toBe(403);
    expect((await call("PATCH", url(), { token: stranger.token, body: { title: "stranger" } })).status).toBe(404);
    expect(
      (await call("PATCH", `${project.base}/issues/9999`, { token: owner.token, body: { title: "x" } })).status,
    ).toBe(404);
    expect((await call("PATCH", `${project.base}/issues/x`, { token: owner.token, body: { title: "x" } })).status).toBe(
      400,
    );
  });
});

describe("POST /issues/{number}/close", () => {
  it("toggles closed and open with a 302 to the issue page", async () => {
    const { number } = (await open(project.base, owner.token, { title: "Toggle me" })).body.issue;
    const path = `${project.base}/issues/${number}/close`;
    const closed = await call("POST", path, { token: writer.token });
    expect(closed.status).toBe(302);
    expect(closed.headers.get("location")).toBe(`/@${owner.username}/${project.slug}/issues/${number}`);
    expect((await call("GET", `${project.base}/issues/${number}`, { token: owner.token })).body.issue.status).toBe(
      "closed",
    );
    const formCaller = await call("POST", path, { token: writer.token, form: {} });
    expect(formCaller.status).toBe(302);
    expect((await call("GET", `${project.base}/issues/${number}`, { token: owner.token })).body.issue.status).toBe(
      "open",
    );
    const kinds = (await call("GET", `${project.base}/activity`, { token: owner.token })).body.events
      .slice(0, 2)
      .map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(["issue.reopened", "issue.closed"]);
  });

  it("answers 401 for agents, 403 for readers, 404 for unknown issues, 400 for malformed numbers", async () => {
    const { number } = (await open(project.base, owner.token, { title: "Guarded" })).body.issue;
    expect((await call("POST", `${project.base}/issues/${number}/close`, { token: agent.token })).status).toBe(401);
    expect((await call("POST", `${project.base}/issues/${number}/close`)).status).toBe(401);
    expect((await call("POST", `${project.base}/issues/${number}/close`, { token: reader.token })).status).toBe(403);
    expect((await call("POST", `${project.base}/issues/9999/close`, { token: owner.token })).status).toBe(404);
    expect((await call("POST", `${project.base}/issues/-1/close`, { token: owner.token })).status).toBe(400);
    expect((await call("POST", `${project.base}/issues/99999999999/close`, { token: owner.token })).status).toBe(400);
    expect(
      (await call("PATCH", `${project.base}/issues/99999999999`, { token: owner.token, body: { title: "x" } })).status,
    ).toBe(400);
  });
});

describe("issue comments", () => {
  it("creates comments (read access, agents too) and lists them oldest first with limit and offset", async () => {
    const { number } = (await open(project.base, owner.token, { title: "Discuss" })).body.issue;
    const path = `${project.base}/issues/${number}/comments`;
    const first = await call("POST", path, { token: reader.token, body: { body: "first" } });
    expect(first.status).toBe(201);
    expect(first.body.comment).toMatchObject({ body: "first", issueNumber: number, author: `user:${reader.id}` });
    const second = await call("POST", path, { token: agent.token, body: { body: "second" } });
    expect(second.status).toBe(201);
    expect(second.body.comment.author).toBe(`agent:${agent.id}`);
    const listed = await call("GET", path, { token: reader.token });
    expect(listed.status).toBe(200);
    expect(listed.body.comments.map((c: { body: string }) => c.body)).toEqual(["first", "second"]);
    expect(
      (await call("GET", `${path}?limit=1&offset=1`, { token: reader.token })).body.comments.map(
        (c: { body: string }) => c.body,
      ),
    ).toEqual(["second"]);
    expect((await call("GET", `${path}?limit=501`, { token: reader.token })).status).toBe(400);
  });

  it("validates the body and answers 401, 404 as the issue routes do", async () => {
    const { number } = (await open(project.base, owner.token, { title: "Comment rules" })).body.issue;
    const path = `${project.base}/issues/${number}/comments`;
    expect((await call("POST", path, { token: owner.token, body: {} })).status).toBe(400);
    expect((await call("POST", path, { token: owner.token, body: { body: "x".repeat(20_001) } })).status).toBe(400);
    expect((await call("POST", path, { token: owner.token, body: { body: "nul \u0000" } })).status).toBe(400);
    expect(
      (await call("POST", `${project.base}/issues/99999999999/comments`, { token: owner.token, body: { body: "x" } }))
        .status,
    ).toBe(400);
    expect((await call("GET", `${project.base}/issues/99999999999/comments`, { token: owner.token })).status).toBe(400);
    expect((await call("POST", path, { token: owner.token, body: { body: "x".repeat(20_000) } })).status).toBe(201);
    expect((await call("POST", path, { body: { body: "anon" } })).status).toBe(401);
    expect((await call("POST", path, { token: stranger.token, body: { body: "x" } })).status).toBe(404);
    expect(
      (await call("POST", `${project.base}/issues/9999/comments`, { token: owner.token, body: { body: "x" } })).status,
    ).toBe(404);
    expect((await call("GET", `${project.base}/issues/9999/comments`, { token: owner.token })).status).toBe(404);
    expect((await call("GET", path)).status).toBe(404);
  });
});
