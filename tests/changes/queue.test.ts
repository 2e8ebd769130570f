import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { processQueue, queuesSettled, wakeQueue } from "@/server/changes";
import {
  advanceProject,
  changeWith,
  commitTo,
  createAgentFor,
  eventsOf,
  merge,
  POLICY,
  projectWith,
  propose,
  workspaceOf,
  type TestProject,
} from "@/server/changes/test-fixtures";
import { branchRef, headBranch, moveBranch, openProjectRepo, openWorkspaceRepo, readRef } from "@/server/git";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { withLogLines } from "@/tests/support/log-lines";
import { createTestUser } from "@/tests/support/users";

useTestEnvironment();

// Background runs started by the routes finish before the next test (and before the database closes).
afterEach(() => queuesSettled());

const LOCKED = "protection:\n  locked: true\n";
const queue = (token: string, id: string, body: Record<string, unknown> = {}) =>
  call("POST", `/api/changes/${id}/queue`, { token, body });
const queueOf = (token: string, project: TestProject) => call("GET", `/api/projects/${project.path}/queue`, { token });

/**
 * A project whose queue holds still (the branch is locked) until `release` lifts the lock and wakes
 * it. Waking (not calling the processor) matters: a run the routes started may still hold the
 * project's turn with the locked policy read, and a wake-up is what makes it go round again.
 */
async function heldProject(token: string, policy = "", files: Record<string, string> = {}) {
  const project = await projectWith(token, { "README.md": "hi\n", ...files, [POLICY]: `${LOCKED}${policy}` });
  const release = async () => {
    await advanceProject(project, { [POLICY]: policy || "requiredApprovals: 0\n" });
    wakeQueue(project.id);
    await queuesSettled();
  };
  return { project, release };
}

async function statusOf(id: string) {
  return (await (await db()).change.findUniqueOrThrow({ where: { id } })).status;
}

async function dequeued(project: TestProject) {
  return (await eventsOf(project.id, "change.dequeued")).map(
    (e) => e.data as { changeId: string; reason: string; conflictId?: string; conflictingFiles?: string[] },
  );
}

describe("the merge queue", { timeout: 120_000 }, () => {
  it("queues in order with positions, lands first queued first (no STALE_BASE), and reports on the change, the list and the events", async () => {
    const alice = await createTestUser();
    const { project, release } = await heldProject(alice.token);
    const changes = [];
    for (const name of ["a", "b", "c"])
      changes.push((await changeWith(alice.token, project, { [`${name}.txt`]: `${name}\n` })).change.id as string);
    const first = await queue(alice.token, changes[0]);
    expect(first.status, first.text).toBe(202);
    expect(first.body).toEqual({ queued: true, changeId: changes[0], position: 1, state: "waiting" });
    expect((await queue(alice.token, changes[1], { strategy: "squash" })).body).toMatchObject({ position: 2 });
    expect((await queue(alice.token, changes[2])).body).toMatchObject({ position: 3 });
    const again = await queue(alice.token, changes[0]);
    expect([again.status, again.body.position]).toEqual([200, 1]);
    const list = await queueOf(alice.token, project);
    expect(list.status).toBe(200);
    expect(list.body.entries.map((e: any) => [e.changeId, e.position, e.state, e.enqueuedBy, e.strategy])).toEqual([
      [changes[0], 1, "waiting", alice.username, "merge"],
      [changes[1], 2, "waiting", alice.username, "squash"],
      [changes[2], 3, "waiting", alice.username, "merge"],
    ]);
    expect((await call("GET", `/api/changes/${changes[1]}`, { token: alice.token })).body.queue).toMatchObject({
      position: 2,
      state: "waiting",
    });

    await release();
    for (const id of changes) expect(await statusOf(id)).toBe("merged");
    expect((await eventsOf(project.id, "change.merged")).map((e) => (e.data as { changeId: string }).changeId)).toEqual(
      changes,
    );
    expect((await dequeued(project)).map((d) => [d.changeId, d.reason])).toEqual(changes.map((id) => [id, "merged"]));
    expect((await eventsOf(project.id, "change.queued")).length).toBe(3);
    const after = await queueOf(alice.token, project);
    expect(after.body).toEqual({ entries: [], mergedLastHour: 3 });
    expect((await call("GET", `/api/changes/${changes[0]}`, { token: alice.token })).body.queue).toBeNull();
    // The landed tip is the squash of b on top of a's merge: one branch, every file.
    const files = await call("GET", `/api/projects/${project.path}/files`, { token: alice.token });
    expect(files.body.files).toEqual(expect.arrayContaining(["a.txt", "b.txt", "c.txt"]));
    const merged = await queue(alice.token, changes[0]);
    expect([merged.status, merged.body.code, merged.body.changeStatus]).toEqual([
      409,
      "CHANGE_NOT_MERGEABLE",
      "merged",
    ]);
  });

  it("cancels (DELETE and the form alias), 404 when not queued; agents get 401; readers 403; forms are redirected", async () => {
    const alice = await createTestUser();
    const reader = await createTestUser();
    const agent = await createAgentFor(alice.token);
    const { project } = await heldProject(alice.token);
    await grantCollaborator(project.id, reader.id, "read");
    const { change } = await changeWith(alice.token, project, { "x.txt": "x\n" });
    expect((await queue(agent.token, change.id)).status).toBe(401);
    expect((await queue(reader.token, change.id)).status).toBe(403);
    expect((await queueOf(reader.token, project)).status).toBe(200);
    const form = await call("POST", `/api/changes/${change.id}/queue`, {
      token: alice.token,
      form: { strategy: "merge" },
    });
    expect([form.status, form.headers.get("location")]).toEqual([302, `/${project.path}/changes/${change.id}`]);
    const cancelled = await call("DELETE", `/api/changes/${change.id}/queue`, { token: alice.token });
    expect([cancelled.status, cancelled.body]).toEqual([200, { queued: false, changeId: change.id }]);
    expect((await call("DELETE", `/api/changes/${change.id}/queue`, { token: alice.token })).status).toBe(404);
    expect((await queue(alice.token, change.id)).status).toBe(202);
    expect(
      (await call("POST", `/api/changes/${change.id}/queue/delete`, { token: alice.token, form: {} })).status,
    ).toBe(302);
    expect((await dequeued(project)).map((d) => d.reason)).toEqual(["cancelled", "cancelled"]);
    const rejected = await changeWith(alice.token, project, { "r.txt": "r\n" });
    await call("POST", `/api/changes/${rejected.change.id}/reject`, { token: alice.token });
    expect((await queue(alice.token, rejected.change.id)).body.code).toBe("CHANGE_NOT_MERGEABLE");
  });

  it("bisects a batch whose projected tree fails evaluation: what is ahead lands, the culprit becomes needs_changes, the rest lands after", async () => {
    const alice = await createTestUser();
    const { project, release } = await heldProject(alice.token, "evaluators:\n  diff:\n    maxFiles: 3\n");
    const a = (await changeWith(alice.token, project, { "a1.txt": "1\n", "a2.txt": "2\n" })).change.id;
    const b = (await changeWith(alice.token, project, { "b1.txt": "1\n", "b2.txt": "2\n" })).change.id;
    const c = (await changeWith(alice.token, project, { "c1.txt": "1\n" })).change.id;
    for (const id of [a, b, c]) expect((await queue(alice.token, id)).status).toBe(202);
    await release();
    expect([await statusOf(a), await statusOf(b), await statusOf(c)]).toEqual(["merged", "needs_changes", "merged"]);
    const reasons = await dequeued(project);
    expect(reasons.map((d) => [d.changeId, d.reason])).toEqual([
      [a, "merged"],
      [b, "evaluation_failed"],
      [c, "merged"],
    ]);
    expect((await queue(alice.token, b)).body.code).toBe("CHANGE_NOT_MERGEABLE");
  });

  it("a conflicting entry leaves with a conflict record; nothing else leaves because of it", async () => {
    const alice = await createTestUser();
    const { project, release } = await heldProject(alice.token, "", { "shared.txt": "base\n" });
    const a = (await changeWith(alice.token, project, { "shared.txt": "from a\n" })).change.id;
    const b = (await changeWith(alice.token, project, { "shared.txt": "from b\n" })).change.id;
    const c = (await changeWith(alice.token, project, { "c.txt": "c\n" })).change.id;
    for (const id of [a, b, c]) await queue(alice.token, id);
    await release();
    expect([await statusOf(a), await statusOf(b), await statusOf(c)]).toEqual(["merged", "accepted", "merged"]);
    const conflictEntry = (await dequeued(project)).find((d) => d.changeId === b)!;
    expect(conflictEntry).toMatchObject({ reason: "conflict", conflictingFiles: ["shared.txt"] });
    const record = await (await db()).conflict.findUniqueOrThrow({ where: { id: conflictEntry.conflictId } });
    expect([record.changeId, record.status]).toEqual([b, "open"]);
  });

  it("lands the queued tip while the workspace moves on; leaves with stale_workspace when the workspace is rewritten", async () => {
    const alice = await createTestUser();
    const { project, release } = await heldProject(alice.token);
    const onTop = await changeWith(alice.token, project, { "kept.txt": "1\n" });
    await queue(alice.token, onTop.change.id);
    await commitTo(alice.token, project, onTop.workspace, { "later.txt": "not yet\n" });
    const rewritten = await changeWith(alice.token, project, { "gone.txt": "1\n" });
    await queue(alice.token, rewritten.change.id);
    const repo = openWorkspaceRepo(project.id, rewritten.workspace);
    const base = readRef(openProjectRepo(project.id), branchRef("main"))!;
    execFileSync("git", ["--git-dir", repo.gitdir, "update-ref", branchRef(headBranch(repo)!), base]);
    await release();
    expect(await statusOf(onTop.change.id)).toBe("merged");
    const files = (await call("GET", `/api/projects/${project.path}/files`, { token: alice.token })).body.files;
    expect(files).toContain("kept.txt");
    expect(files).not.toContain("later.txt");
    expect(await statusOf(rewritten.change.id)).toBe("accepted");
    expect((await dequeued(project)).find((d) => d.changeId === rewritten.change.id)?.reason).toBe("stale_workspace");
  });

  it("an entry that waited is checked again once its workspace moves: rewritten while waiting for an approval, it leaves with stale_workspace", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n", [POLICY]: "requiredApprovals: 1\n" });
    await grantCollaborator(project.id, bob.id, "write");
    const waiting = await changeWith(alice.token, project, { "w.txt": "w\n" });
    expect((await queue(alice.token, waiting.change.id)).status).toBe(202);
    // A round finds it in its workspace's history, short of its approval: it waits.
    await queuesSettled();
    expect((await queueOf(alice.token, project)).body.entries.map((e: any) => e.changeId)).toEqual([waiting.change.id]);
    const repo = openWorkspaceRepo(project.id, waiting.workspace);
    const base = readRef(openProjectRepo(project.id), branchRef("main"))!;
    execFileSync("git", ["--git-dir", repo.gitdir, "update-ref", branchRef(headBranch(repo)!), base]);
    expect(
      (
        await call("POST", `/api/changes/${waiting.change.id}/reviews`, {
          token: bob.token,
          body: { verdict: "approve" },
        })
      ).status,
    ).toBe(201);
    await queuesSettled();
    expect(await statusOf(waiting.change.id)).toBe("approved");
    expect((await dequeued(project)).map((d) => [d.changeId, d.reason])).toEqual([
      [waiting.change.id, "stale_workspace"],
    ]);
  });

  it("merge.autoQueue lands accepted changes with nobody pressing a button, recorded as by the owner", async () => {
    const owner = await createTestUser();
    const agent = await createAgentFor(owner.token);
    const project = await projectWith(owner.token, { "README.md": "hi\n", [POLICY]: "merge:\n  autoQueue: true\n" });
    const workspace = await workspaceOf(agent.token, project);
    await commitTo(agent.token, project, workspace, { "agent.txt": "work\n" });
    const created = await propose(agent.token, project, workspace);
    expect(created.status, created.text).toBe(201);
    await queuesSettled();
    const change = await (await db()).change.findUniqueOrThrow({ where: { id: created.body.change.id } });
    expect([change.status, change.mergedById]).toEqual(["merged", owner.id]);
    expect(
      (await eventsOf(project.id, "change.queued")).map((e) => [e.actor, (e.data as { auto: boolean }).auto]),
    ).toEqual([["system", true]]);
  });

  it("an idle queue waits QUEUE_GATHER_MS for more entries: changes queued within the window land in one landing", async () => {
    const owner = await createTestUser();
    const agents = [await createAgentFor(owner.token), await createAgentFor(owner.token)];
    const project = await projectWith(owner.token, { "README.md": "hi\n", [POLICY]: "merge:\n  autoQueue: true\n" });
    const workspaces = await Promise.all(agents.map((agent) => workspaceOf(agent.token, project)));
    await Promise.all(
      agents.map((agent, i) => commitTo(agent.token, project, workspaces[i], { [`agent${i}.txt`]: "work\n" })),
    );
    const ids = await withEnv({ QUEUE_GATHER_MS: "2000" }, async () => {
      const first = (await propose(agents[0].token, project, workspaces[0])).body.change.id as string;
      const second = (await propose(agents[1].token, project, workspaces[1])).body.change.id as string;
      // Inside the window nothing has landed: the first entry waits for company.
      expect((await call("GET", `/api/changes/${first}`, { token: owner.token })).body.queue).toMatchObject({
        position: 1,
        state: "waiting",
      });
      await queuesSettled();
      return [first, second];
    });
    const merged = await (
      await db()
    ).change.findMany({ where: { id: { in: ids } }, select: { status: true, mergedAt: true } });
    expect(merged.map((change) => change.status)).toEqual(["merged", "merged"]);
    // One landing: one transaction, one mergedAt.
    expect(new Set(merged.map((change) => change.mergedAt!.getTime())).size).toBe(1);
  });

  it("an agent's change waits unqueued for the required approvals, then enters by itself", async () => {
    const owner = await createTestUser();
    const reviewer = await createTestUser();
    const agent = await createAgentFor(owner.token);
    const project = await projectWith(owner.token, {
      "README.md": "hi\n",
      [POLICY]: "requiredApprovals: 1\nmerge:\n  autoQueue: true\n",
    });
    await grantCollaborator(project.id, reviewer.id, "write");
    const workspace = await workspaceOf(agent.token, project);
    await commitTo(agent.token, project, workspace, { "agent.txt": "work\n" });
    const id = (await propose(agent.token, project, workspace)).body.change.id;
    await queuesSettled();
    expect(await statusOf(id)).toBe("accepted");
    expect((await call("GET", `/api/changes/${id}`, { token: owner.token })).body.queue).toBeNull();
    const review = await call("POST", `/api/changes/${id}/reviews`, {
      token: reviewer.token,
      body: { verdict: "approve" },
    });
    expect(review.status, review.text).toBe(201);
    await queuesSettled();
    expect(await statusOf(id)).toBe("merged");
  });

  it("wakes by itself: a queued change lands once approved, and a held queue runs when the branch moves through the door", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n", [POLICY]: "requiredApprovals: 1\n" });
    await grantCollaborator(project.id, bob.id, "write");
    const approved = (await changeWith(alice.token, project, { "a.txt": "a\n" })).change.id;
    expect((await queue(alice.token, approved)).status).toBe(202);
    await queuesSettled();
    expect(await statusOf(approved)).toBe("accepted");
    expect(
      (await call("POST", `/api/changes/${approved}/reviews`, { token: bob.token, body: { verdict: "approve" } }))
        .status,
    ).toBe(201);
    await queuesSettled();
    expect(await statusOf(approved)).toBe("merged");

    const { project: held } = await heldProject(alice.token);
    const waiting = (await changeWith(alice.token, held, { "w.txt": "w\n" })).change.id;
    await queue(alice.token, waiting);
    await queuesSettled();
    const repo = openProjectRepo(held.id);
    const before = readRef(repo, branchRef("main"))!;
    const unlocked = await advanceProject(held, { [POLICY]: "requiredApprovals: 0\n" });
    execFileSync("git", ["--git-dir", repo.gitdir, "update-ref", branchRef("main"), before]);
    expect(await statusOf(waiting)).toBe("accepted");
    await moveBranch(repo, {
      project: { id: held.id, defaultBranch: "main" },
      workspace: null,
      ref: branchRef("main"),
      from: before,
      to: unlocked,
      actor: `user:${alice.id}`,
      cause: "push",
      changeIds: [],
    });
    await queuesSettled();
    expect(await statusOf(waiting)).toBe("merged");
  });

  it("a processor that stopped mid-batch loses and duplicates nothing; two processors on one database land each entry once", async () => {
    const alice = await createTestUser();
    const { project } = await heldProject(alice.token);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await changeWith(alice.token, project, { [`f${i}.txt`]: `${i}\n` })).change.id);
    for (const id of ids) await queue(alice.token, id);
    // What a killed processor leaves behind: entries marked as under test, nothing landed.
    await (await db()).queueEntry.updateMany({ where: { projectId: project.id }, data: { state: "testing" } });
    await advanceProject(project, { [POLICY]: "requiredApprovals: 0\n" });
    await Promise.all([processQueue(project.id), processQueue(project.id), (async () => wakeQueue(project.id))()]);
    await queuesSettled();
    await processQueue(project.id);
    for (const id of ids) expect(await statusOf(id)).toBe("merged");
    const merged = (await eventsOf(project.id, "change.merged")).map((e) => (e.data as { changeId: string }).changeId);
    expect(merged).toEqual(ids);
    expect(await (await db()).provenance.count({ where: { changeId: { in: ids } } })).toBe(ids.length);
    expect(await (await db()).queueEntry.count({ where: { projectId: project.id } })).toBe(0);
  });

  it("a change read while the queue lands it shows it queued or merged, never neither", async () => {
    const alice = await createTestUser();
    const { project, release } = await heldProject(alice.token);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await changeWith(alice.token, project, { [`read${i}.txt`]: `${i}\n` })).change.id);
    for (const id of ids) await queue(alice.token, id);
    const seen: string[] = [];
    let landing = true;
    const readers = ids.map(async (id) => {
      while (landing) {
        const { body } = await call("GET", `/api/changes/${id}`, { token: alice.token });
        seen.push(body.queue ? "queued" : body.change.status);
      }
    });
    try {
      await release();
    } finally {
      landing = false;
      await Promise.all(readers);
    }
    for (const id of ids) expect(await statusOf(id)).toBe("merged");
    expect(seen.length).toBeGreaterThan(ids.length);
    expect(seen.filter((state) => state !== "queued" && state !== "merged")).toEqual([]);
  });

  it("a direct merge racing the queue's landing: each change merges once, the queue's run rolls back and goes round (never fails), nobody sees a server error", async () => {
    await withLogLines(async (lines) => {
      const alice = await createTestUser();
      const project = await projectWith(alice.token, { "README.md": "hi\n" });
      const statuses: number[] = [];
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const { change } = await changeWith(alice.token, project, { [`race${i}.txt`]: `${i}\n` });
        ids.push(change.id);
        // Queueing wakes the processor; queueing again and the direct merges race its landing of the same change.
        const calls = [queue, queue, merge, queue, queue, merge, queue, queue];
        const answers = await Promise.all(calls.map((send) => send(alice.token, change.id)));
        statuses.push(...answers.map((a) => a.status));
        await queuesSettled();
      }
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(await (await db()).queueEntry.count({ where: { projectId: project.id } })).toBe(0);
      const merged = (await eventsOf(project.id, "change.merged")).map(
        (e) => (e.data as { changeId: string }).changeId,
      );
      expect(merged.sort()).toEqual([...ids].sort());
      expect(lines.filter((line) => String(line.msg).startsWith("queue:"))).toEqual([]);
    });
  });
});
