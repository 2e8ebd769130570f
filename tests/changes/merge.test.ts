import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { openProjectRepo, readCommit, readRef } from "@/server/git";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import {
  advanceProject,
  changeWith,
  commitTo,
  createAgentFor,
  eventsOf,
  merge,
  ownerReaderAgentChange,
  POLICY,
  projectWith,
} from "@/server/changes/test-fixtures";

useTestEnvironment();

const headOf = (projectId: string) => readRef(openProjectRepo(projectId), "refs/heads/main")!;
const showFile = (projectId: string, commit: string, file: string) =>
  execFileSync("git", ["--git-dir", openProjectRepo(projectId).gitdir, "show", `${commit}:${file}`]).toString();

/** changes.mergeBlockers has no REST route: the change page reads it in-process, typed callers through /api/trpc. */
const trpcBlockers = (token: string | undefined, id: string) =>
  call("GET", `/api/trpc/changes.mergeBlockers?input=${encodeURIComponent(JSON.stringify({ id }))}`, { token });
async function blockersOf(token: string, id: string): Promise<string[]> {
  const res = await trpcBlockers(token, id);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result.data.blockers;
}

describe("POST /api/changes/{id}/merge", () => {
  it("merges with a merge commit, closes linked issues by system, records provenance and change.merged", async () => {
    const alice = await createTestUser();
    const agent = await createAgentFor(alice.token, "model-x");
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(agent.token, project, { "a.txt": "a\n" });
    const issue = await call("POST", `/api/projects/${project.path}/issues`, {
      token: alice.token,
      body: { title: "Add a", linkedChangeId: change.id },
    });
    expect(issue.status, JSON.stringify(issue.body)).toBe(201);

    const res = await merge(alice.token, change.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      merged: true,
      changeId: change.id,
      project: project.path,
      workspace: expect.any(String),
      postMerge: { status: "passed" },
    });
    const head = headOf(project.id);
    expect(res.body.commit).toBe(head);
    const landed = await readCommit(openProjectRepo(project.id), head);
    expect(landed.parent).toEqual([project.commit, change.tipSha]);
    // The subject says what landed in words; the body who opened it and from where; a trailer its id.
    expect(change.title).toBeTruthy();
    expect(landed.message).toBe(
      `Merge change !${change.number} '${change.title}' (${alice.username}/bot)\n\n` +
        `Merged change !${change.number} '${change.title}' by ${alice.username}/bot from workspace ${res.body.workspace}.\n\n` +
        `Change-Id: ${change.id}\n`,
    );
    expect(showFile(project.id, head, "a.txt")).toBe("a\n");

    const got = await call("GET", `/api/changes/${change.id}`, { token: alice.token });
    expect(got.body.change).toMatchObject({ status: "merged", mergedSha: head, mergedById: alice.id });
    const closed = await call("GET", `/api/projects/${project.path}/issues/${issue.body.issue.number}`, {
      token: alice.token,
    });
    expect(closed.body.issue.status).toBe("closed");
    const issueClosed = await eventsOf(project.id, "issue.closed");
    expect(issueClosed.map((e) => e.actor)).toEqual(["system"]);
    expect(
      (await eventsOf(project.id, "change.merged")).map((e) => (e.data as { changeId?: string }).changeId),
    ).toEqual([change.id]);
    const provenance = await call("GET", `/api/projects/${project.path}/provenance`, { token: alice.token });
    expect(provenance.body.records).toMatchObject([
      { commitSha: head, changeId: change.id, agentId: agent.id, authorId: alice.id, model: "model-x" },
    ]);
  });

  it("squashes into one commit on the head", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const res = await merge(alice.token, change.id, "?strategy=squash");
    expect(res.status).toBe(200);
    const landed = await readCommit(openProjectRepo(project.id), res.body.commit);
    expect(landed.parent).toEqual([project.commit]);
    expect(landed.message).toBe(
      `${change.title} (!${change.number})\n\n` +
        `Squashed change !${change.number} '${change.title}' by ${alice.username} from workspace ${res.body.workspace}.\n\n` +
        `Change-Id: ${change.id}\n`,
    );
    expect((await merge(alice.token, change.id)).status).toBe(400);
  });

  it("refuses an unknown strategy, agents, anonymous callers and readers", async () => {
    const { owner: alice, reader: carol, agent, change } = await ownerReaderAgentChange();
    expect((await merge(alice.token, change.id, "?strategy=rebase")).status).toBe(400);
    expect((await merge(agent.token, change.id)).status).toBe(401);
    expect((await call("POST", `/api/changes/${change.id}/merge`)).status).toBe(401);
    expect((await merge(carol.token, change.id)).status).toBe(403);
    expect((await merge(alice.token, "00000000-0000-0000-0000-000000000000")).status).toBe(404);
  });

  it("blocks on requiredApprovals (the author's own approval does not count) with reasons", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { [POLICY]: "requiredApprovals: 1\n" });
    await grantCollaborator(project.id, bob.id, "write");
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    await call("POST", `/api/changes/${change.id}/reviews`, { token: alice.token, body: { verdict: "approve" } });
    const blocked = await merge(alice.token, change.id);
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe("PROTECTION_BLOCKED");
    expect(blocked.body.reasons).toEqual(["0 of 1 required approvals (the author's own approval does not count)"]);
    // The change page's merge box asks the same gates before the click.
    expect(await blockersOf(alice.token, change.id)).toEqual(blocked.body.reasons);
    await call("POST", `/api/changes/${change.id}/reviews`, { token: bob.token, body: { verdict: "approve" } });
    expect(await blockersOf(alice.token, change.id)).toEqual([]);
    expect((await merge(alice.token, change.id)).status).toBe(200);
    expect(await blockersOf(alice.token, change.id)).toEqual(["The change is already merged"]);
  });

  it("changes.mergeBlockers lists every gate a merge would fail now, in the merge's order; readers may ask, strangers get 404", async () => {
    const alice = await createTestUser();
    const reader = await createTestUser();
    const stranger = await createTestUser();
    const project = await projectWith(alice.token, { [POLICY]: "requiredApprovals: 1\nprotection:\n  locked: true\n" });
    await grantCollaborator(project.id, reader.id, "read");
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    await advanceProject(project, { "b.txt": "b\n" });
    const blockers = await blockersOf(reader.token, change.id);
    expect(blockers).toEqual([
      "The default branch is locked (protection.locked)",
      "0 of 1 required approvals (the author's own approval does not count)",
      "The default branch moved since the change was evaluated; re-evaluate it",
    ]);
    const refused = await merge(alice.token, change.id);
    expect([refused.status, refused.body.reasons]).toEqual([403, blockers.slice(0, 2)]);
    expect((await trpcBlockers(stranger.token, change.id)).status).toBe(404);
    expect((await trpcBlockers(undefined, change.id)).status).toBe(404);
  });

  it("blocks a failed evaluation unless force is allowed by policy; force never passes protection", async () => {
    const alice = await createTestUser();
    const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z4A";
    const strict = await projectWith(alice.token, { "README.md": "hi\n" });
    const bad = await changeWith(alice.token, strict, { "a.txt": `t=${token}\n` });
    const blocked = await merge(alice.token, bad.change.id);
    expect(blocked.status).toBe(403);
    expect(blocked.body.reasons).toEqual(expect.arrayContaining(["The change's evaluation failed"]));
    const forced = await merge(alice.token, bad.change.id, "?force=true");
    expect(forced.status).toBe(403);
    expect(forced.body.reasons).toContain("force needs merge.allowForce: true in the project policy");

    const lenient = await projectWith(alice.token, { [POLICY]: "requiredApprovals: 2\nmerge: { allowForce: true }\n" });
    const other = await changeWith(alice.token, lenient, { "a.txt": `t=${token}\n` });
    expect((await merge(alice.token, other.change.id)).status).toBe(403);
    expect((await merge(alice.token, other.change.id, "?force=true")).status).toBe(200);

    const locked = await projectWith(alice.token, {
      [POLICY]: "merge: { allowForce: true }\nprotection: { locked: true }\n",
    });
    const third = await changeWith(alice.token, locked, { "a.txt": "a\n" });
    const lockedRes = await merge(alice.token, third.change.id, "?force=true");
    expect(lockedRes.status).toBe(403);
    expect(lockedRes.body.reasons).toEqual(["The default branch is locked (protection.locked)"]);
  });

  it("fails closed when the policy names an evaluator without a binding", async () => {
    const alice = await createTestUser();
    delete process.env.SANDBOX_ENABLED;
    const project = await projectWith(alice.token, {
      [POLICY]: "merge: { allowForce: true }\nevaluators: { sandbox: { command: 'true' } }\n",
    });
    const { change, evalRuns } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect(evalRuns.find((r: any) => r.evaluator === "sandbox")).toMatchObject({ status: "error" });
    const res = await merge(alice.token, change.id, "?force=true");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: "PROTECTION_BLOCKED",
      reasons: ["The policy names evaluator sandbox (SANDBOX_ENABLED is not set)"],
    });
  });

  it("blocks a change whose reviewer requested changes", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await grantCollaborator(project.id, bob.id, "write");
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    await call("POST", `/api/changes/${change.id}/reviews`, {
      token: bob.token,
      body: { verdict: "request_changes", comment: "no" },
    });
    const res = await merge(alice.token, change.id);
    expect(res.status).toBe(403);
    expect(res.body.reasons).toContain("A reviewer requested changes");
  });

  it("answers STALE_BASE when the default branch moved (requireFreshBase)", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const head = await advanceProject(project, { "b.txt": "b\n" });
    const res = await merge(alice.token, change.id);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "STALE_BASE", baseSha: project.commit, currentHead: head });
    expect((await call("POST", `/api/changes/${change.id}/evaluate`, { token: alice.token })).status).toBe(200);
    expect((await merge(alice.token, change.id)).status).toBe(200);
  });

  it("merges on top of a moved branch when requireFreshBase is false", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { [POLICY]: "merge: { requireFreshBase: false }\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const head = await advanceProject(project, { "b.txt": "b\n" });
    const res = await merge(alice.token, change.id);
    expect(res.status).toBe(200);
    expect((await readCommit(openProjectRepo(project.id), res.body.commit)).parent[0]).toBe(head);
    expect(showFile(project.id, res.body.commit, "b.txt")).toBe("b\n");
  });

  it("answers STALE_WORKSPACE when the workspace advanced, WORKSPACE_UNVERIFIABLE when it is gone", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change, workspace } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const tip = await commitTo(alice.token, project, workspace, { "a.txt": "a2\n" });
    const stale = await merge(alice.token, change.id);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: "STALE_WORKSPACE", evaluatedSha: change.tipSha, currentTip: tip });

    const other = await changeWith(alice.token, project, { "b.txt": "b\n" });
    const { removeRepo, openWorkspaceRepo } = await import("@/server/git");
    removeRepo(openWorkspaceRepo(project.id, other.workspace));
    const gone = await merge(alice.token, other.change.id);
    expect(gone.status).toBe(409);
    expect(gone.body.code).toBe("WORKSPACE_UNVERIFIABLE");
  });

  it("checks the gates in order: protection before STALE_BASE", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { [POLICY]: "requiredApprovals: 1\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    await advanceProject(project, { "b.txt": "b\n" });
    expect((await merge(alice.token, change.id)).body.code).toBe("PROTECTION_BLOCKED");
  });

  it("answers MERGE_CONFLICT with a conflict record", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, {
      [POLICY]: "merge: { requireFreshBase: false }\n",
      "a.txt": "1\n",
    });
    const { change } = await changeWith(alice.token, project, { "a.txt": "workspace\n" });
    await advanceProject(project, { "a.txt": "project\n" });
    const res = await merge(alice.token, change.id);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: "MERGE_CONFLICT",
      conflictingFiles: ["a.txt"],
      conflictId: expect.any(String),
    });
    const record = await (await db()).conflict.findUnique({ where: { id: res.body.conflictId } });
    expect(record).toMatchObject({ changeId: change.id, status: "open", files: ["a.txt"] });
  });

  it("reports a failing post-merge policy check", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const valid = await changeWith(alice.token, project, { [POLICY]: "requiredApprovals: 0\n" });
    expect((await merge(alice.token, valid.change.id)).body.postMerge).toEqual({ status: "passed" });
    const broken = await changeWith(alice.token, project, { [POLICY]: "requiredApprovals: [\n" });
    expect(broken.change.status).toBe("accepted");
    const res = await merge(alice.token, broken.change.id);
    expect(res.status).toBe(200);
    expect(res.body.postMerge).toMatchObject({ status: "failed", message: expect.stringContaining(".svc/policy.yml") });
  });
});

describe("racing merges", () => {
  it("two merges of different changes race: one wins, the other gets STALE_BASE; no commit is lost", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const first = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const second = await changeWith(alice.token, project, { "b.txt": "b\n" });
    const results = await Promise.all([merge(alice.token, first.change.id), merge(alice.token, second.change.id)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    expect(loser.body.code).toBe("STALE_BASE");
    const winner = results.find((r) => r.status === 200)!;
    expect(headOf(project.id)).toBe(winner.body.commit);
  });

  it("without requireFreshBase both land, one on top of the other", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { [POLICY]: "merge: { requireFreshBase: false }\n" });
    const changes = await Promise.all(
      [1, 2, 3].map(async (i) => (await changeWith(alice.token, project, { [`f${i}.txt`]: `${i}\n` })).change),
    );
    const results = await Promise.all(changes.map((c) => merge(alice.token, c.id)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const head = headOf(project.id);
    for (const i of [1, 2, 3]) expect(showFile(project.id, head, `f${i}.txt`)).toBe(`${i}\n`);
  });

  it("many racing merges without requireFreshBase: each lands or answers STALE_BASE, never a bare CONFLICT", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { [POLICY]: "merge: { requireFreshBase: false }\n" });
    const changes = await Promise.all(
      Array.from(
        { length: 8 },
        async (_, i) => (await changeWith(alice.token, project, { [`r${i}.txt`]: `${i}\n` })).change,
      ),
    );
    const results = await Promise.all(changes.map((c) => merge(alice.token, c.id)));
    for (const res of results) {
      if (res.status !== 200) expect([res.status, res.body.code]).toEqual([409, "STALE_BASE"]);
    }
    const head = headOf(project.id);
    const landed = results.flatMap((res, i) => (res.status === 200 ? [i] : []));
    for (const i of landed) expect(showFile(project.id, head, `r${i}.txt`)).toBe(`${i}\n`);
    expect((await eventsOf(project.id, "change.merged")).length).toBe(landed.length);
  });

  it("the same change merged twice at once lands once", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { [POLICY]: "merge: { requireFreshBase: false }\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const results = await Promise.all([merge(alice.token, change.id), merge(alice.token, change.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect((await eventsOf(project.id, "change.merged")).length).toBe(1);
    const log = execFileSync("git", ["--git-dir", openProjectRepo(project.id).gitdir, "rev-list", "--count", "main"])
      .toString()
      .trim();
    expect(log).toBe("3");
  });
});
