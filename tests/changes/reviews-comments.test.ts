import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { changeWith, createAgentFor, eventsOf, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

const review = (token: string | undefined, changeId: string, body: unknown) =>
  call("POST", `/api/changes/${changeId}/reviews`, { token, body });
const comment = (token: string | undefined, changeId: string, body: unknown) =>
  call("POST", `/api/changes/${changeId}/comments`, { token, body });

async function setup(visibility: "private" | "public" = "private") {
  const alice = await createTestUser();
  const bob = await createTestUser();
  const carol = await createTestUser();
  const project = await projectWith(alice.token, { "README.md": "hi\n" }, visibility);
  await grantCollaborator(project.id, bob.id, "write");
  await grantCollaborator(project.id, carol.id, "read");
  const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
  return { alice, bob, carol, project, change };
}

describe("reviews", () => {
  it("follows the state table and emits change.reviewed / change.commented", async () => {
    const { bob, project, change } = await setup();
    const approved = await review(bob.token, change.id, { verdict: "approve", comment: "lgtm" });
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({
      changeStatus: "approved",
      review: { verdict: "approve", comment: "lgtm", reviewer: { id: bob.id } },
    });
    const requested = await review(bob.token, change.id, { verdict: "request_changes" });
    expect(requested.body.changeStatus).toBe("needs_changes");
    const commented = await review(bob.token, change.id, { verdict: "comment", comment: "one more thing" });
    expect(commented.status).toBe(201);
    expect(commented.body.changeStatus).toBe("needs_changes");
    const kinds = (await eventsOf(project.id))
      .map((e) => e.kind)
      .filter((k) => k === "change.reviewed" || k === "change.commented");
    expect(kinds).toEqual(["change.reviewed", "change.reviewed", "change.commented"]);
  });

  it("rule 2: a comment verdict never replaces a verdict; it records a row only for a reviewer without one", async () => {
    const { alice, bob, change } = await setup();
    await review(bob.token, change.id, { verdict: "approve" });
    await review(bob.token, change.id, { verdict: "comment", comment: "nit" });
    await review(alice.token, change.id, { verdict: "comment", comment: "thanks" });
    await review(alice.token, change.id, { verdict: "comment", comment: "again" });
    const list = await call("GET", `/api/changes/${change.id}/reviews`, { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.body.reviews.map((r: any) => [r.reviewer.id, r.verdict, r.comment])).toEqual([
      [bob.id, "approve", null],
      [alice.id, "comment", null],
    ]);
    // The comment texts went to the discussion.
    const comments = await call("GET", `/api/changes/${change.id}/comments`, { token: alice.token });
    expect(comments.body.comments.map((c: any) => c.body)).toEqual(["nit", "thanks", "again"]);
    expect((await call("GET", `/api/changes/${change.id}`, { token: alice.token })).body.change.status).toBe(
      "approved",
    );
  });

  it("400 for an empty comment verdict or unknown verdict; 401 agents and anonymous; 403 readers; 404 strangers", async () => {
    const { alice, carol, change } = await setup();
    const stranger = await createTestUser();
    const agent = await createAgentFor(alice.token);
    expect((await review(alice.token, change.id, { verdict: "comment" })).status).toBe(400);
    expect((await review(alice.token, change.id, { verdict: "comment", comment: "   " })).status).toBe(400);
    expect((await review(alice.token, change.id, { verdict: "lgtm" })).status).toBe(400);
    expect((await review(alice.token, change.id, { verdict: "approve", comment: "x".repeat(20_001) })).status).toBe(
      400,
    );
    expect((await review(alice.token, change.id, { verdict: "approve", comment: "a\u0000b" })).status).toBe(400);
    expect((await review(alice.token, change.id, { verdict: "comment", comment: "a\u0000b" })).status).toBe(400);
    expect((await review(agent.token, change.id, { verdict: "approve" })).status).toBe(401);
    expect((await review(undefined, change.id, { verdict: "approve" })).status).toBe(401);
    expect((await review(carol.token, change.id, { verdict: "approve" })).status).toBe(403);
    expect((await review(stranger.token, change.id, { verdict: "approve" })).status).toBe(404);
  });

  it("refuses reviews of merged or rejected changes; 409 TARGET_DELETING", async () => {
    const { alice, project, change } = await setup();
    await call("POST", `/api/changes/${change.id}/reject`, { token: alice.token });
    expect((await review(alice.token, change.id, { verdict: "approve" })).status).toBe(400);
    const other = await changeWith(alice.token, project, { "b.txt": "b\n" });
    await (await db()).project.update({ where: { id: project.id }, data: { deletingAt: new Date() } });
    const deleting = await review(alice.token, other.change.id, { verdict: "approve" });
    expect(deleting.status).toBe(409);
    expect(deleting.body.code).toBe("TARGET_DELETING");
  });

  it("lists reviews anonymously on public projects", async () => {
    const { bob, change } = await setup("public");
    await review(bob.token, change.id, { verdict: "approve" });
    const list = await call("GET", `/api/changes/${change.id}/reviews`);
    expect(list.status).toBe(200);
    expect(list.body.reviews).toHaveLength(1);
  });
});

describe("comments", () => {
  let shared: ReturnType<typeof setup> | undefined;

  it("anchors, one-level threads (a reply to a reply flattens onto the root), agents and readers may comment", async () => {
    const { alice, carol, project, change } = await setup();
    const agent = await createAgentFor(alice.token);
    const root = await comment(carol.token, change.id, {
      body: "why?",
      file: "a.txt",
      line: 1,
      side: "new",
      commitSha: change.tipSha,
    });
    expect(root.status, JSON.stringify(root.body)).toBe(201);
    expect(root.body.comment).toMatchObject({
      file: "a.txt",
      line: 1,
      side: "new",
      commitSha: change.tipSha,
      parentCommentId: null,
      author: { id: carol.id },
    });
    const reply = await comment(agent.token, change.id, { body: "because", parentCommentId: root.body.comment.id });
    expect(reply.status).toBe(201);
    expect(reply.body.comment).toMatchObject({
      parentCommentId: root.body.comment.id,
      agentId: agent.id,
      author: { id: alice.id },
    });
    const nested = await comment(alice.token, change.id, { body: "ok", parentCommentId: reply.body.comment.id });
    expect(nested.body.comment.parentCommentId).toBe(root.body.comment.id);
    expect((await eventsOf(project.id, "change.commented")).length).toBe(3);
  });

  it.each([
    ["an empty body", { body: "" }],
    ["a body over 20000 characters", { body: "x".repeat(20_001) }],
    ["a file without a line", { body: "b", file: "a.txt" }],
    ["a line without a file", { body: "b", line: 2 }],
    ["line 0", { body: "b", file: "a.txt", line: 0 }],
    ["a side without an anchor", { body: "b", side: "old" }],
    ["a commitSha without an anchor", { body: "b", commitSha: "a".repeat(40) }],
    ["a bad side", { body: "b", file: "a.txt", line: 1, side: "left" }],
    ["a NUL character in the body", { body: "a\u0000b" }],
    ["a NUL character in the file", { body: "b", file: "a\u0000", line: 1 }],
    ["a line beyond a 32-bit integer", { body: "b", file: "a.txt", line: 2 ** 31 }],
  ])("400 for %s", async (_, body) => {
    const { alice, change } = await (shared ??= setup());
    expect((await comment(alice.token, change.id, body)).status).toBe(400);
  });

  it("accepts a 20000-character body; 400 for a reply with an anchor or a parent of another change; 401/404", async () => {
    const { alice, project, change } = await setup();
    const stranger = await createTestUser();
    expect((await comment(alice.token, change.id, { body: "x".repeat(20_000) })).status).toBe(201);
    const root = await comment(alice.token, change.id, { body: "root" });
    expect(
      (
        await comment(alice.token, change.id, {
          body: "r",
          parentCommentId: root.body.comment.id,
          file: "a.txt",
          line: 1,
        })
      ).status,
    ).toBe(400);
    const other = await changeWith(alice.token, project, { "b.txt": "b\n" });
    expect(
      (await comment(alice.token, other.change.id, { body: "r", parentCommentId: root.body.comment.id })).status,
    ).toBe(400);
    expect((await comment(undefined, change.id, { body: "x" })).status).toBe(401);
    expect((await comment(stranger.token, change.id, { body: "x" })).status).toBe(404);
    expect((await call("GET", `/api/changes/${change.id}/comments`, { token: stranger.token })).status).toBe(404);
  });

  it("resolve/unresolve: roots only, by writers or the author", async () => {
    const { alice, bob, carol, change } = await setup();
    const other = await createTestUser();
    const root = (await comment(carol.token, change.id, { body: "root" })).body.comment;
    const reply = (await comment(alice.token, change.id, { body: "reply", parentCommentId: root.id })).body.comment;
    const path = (id: string, action: string) => `/api/changes/${change.id}/comments/${id}/${action}`;
    const byAuthor = await call("POST", path(root.id, "resolve"), { token: carol.token });
    expect(byAuthor.status).toBe(200);
    expect(byAuthor.body.comment).toMatchObject({ resolved: true, resolvedById: carol.id });
    const reopened = await call("POST", path(root.id, "unresolve"), { token: bob.token });
    expect(reopened.body.comment).toMatchObject({ resolved: false, resolvedAt: null });
    expect((await call("POST", path(reply.id, "resolve"), { token: alice.token })).status).toBe(400);
    const carolsOwnReplyRoot = (await comment(alice.token, change.id, { body: "alice root" })).body.comment;
    expect((await call("POST", path(carolsOwnReplyRoot.id, "resolve"), { token: carol.token })).status).toBe(403);
    expect((await call("POST", path(root.id, "resolve"), { token: other.token })).status).toBe(404);
    expect(
      (await call("POST", path("00000000-0000-0000-0000-000000000000", "resolve"), { token: alice.token })).status,
    ).toBe(404);
  });
});
