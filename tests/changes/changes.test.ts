import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import {
  advanceProject,
  ownerReaderAgentChange,
  changeWith,
  commitTo,
  createAgentFor,
  eventsOf,
  merge,
  POLICY,
  projectWith,
  propose,
  workspaceOf,
} from "@/server/changes/test-fixtures";

useTestEnvironment();

const fakeToken = () => "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z4A";

describe("POST /api/projects/{name}/changes", () => {
  it("diffs, evaluates and records an accepted change with its eval run and events", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(alice.token, project);
    const tip = await commitTo(
      alice.token,
      project,
      workspace,
      { "src/a.ts": "export const a = 1;\n" },
      "Add a\n\nbody",
    );
    const res = await propose(alice.token, project, workspace);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.change).toMatchObject({
      status: "accepted",
      project: project.path,
      projectId: project.id,
      workspace,
      author: { id: alice.id, username: alice.username },
      agentId: null,
      title: "Add a",
      baseSha: project.commit,
      tipSha: tip,
    });
    expect(res.body.eval).toMatchObject({
      verdict: "passed",
      round: 1,
      baseSha: project.commit,
      tipSha: tip,
      issues: [],
    });
    expect(res.body.evalRuns).toMatchObject([{ evaluator: "secretScan", status: "passed", round: 1 }]);
    expect((await eventsOf(project.id)).map((e) => e.kind).filter((k) => k.startsWith("change."))).toEqual([
      "change.created",
      "change.evaluated",
    ]);
  });

  it("records needs_changes when the secret scan finds a secret, naming file and line only", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const {
      change,
      eval: evaluation,
      evalRuns,
    } = await changeWith(alice.token, project, { "config/.env": `A=1\nGITHUB_TOKEN=${fakeToken()}\n` });
    expect(change.status).toBe("needs_changes");
    expect(evaluation.verdict).toBe("failed");
    expect(evalRuns[0].findings[0]).toMatchObject({ file: "config/.env", line: 2, rule: "github-token" });
    expect(JSON.stringify({ change, evaluation, evalRuns })).not.toContain(fakeToken());
  });

  it("reports an invalid policy as a clear error on the change", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { [POLICY]: "requiredApprovals: many\n" });
    const { change, eval: evaluation, evalRuns } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect(change.status).toBe("needs_changes");
    expect(evalRuns.map((r: any) => [r.evaluator, r.status])).toEqual([
      ["secretScan", "passed"],
      ["policy", "error"],
    ]);
    expect(evaluation.issues[0]).toContain(".svc/policy.yml is invalid at requiredApprovals");
  });

  it("runs the policy's evaluators: a diff limit fails the change", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, {
      [POLICY]: "evaluators:\n  diff: { maxFiles: 1, forbiddenPaths: ['infra/**'] }\n",
    });
    const { change, evalRuns } = await changeWith(alice.token, project, { "a.txt": "a\n", "infra/x.tf": "x\n" });
    expect(change.status).toBe("needs_changes");
    const diff = evalRuns.find((r: any) => r.evaluator === "diff");
    expect(diff.findings.map((f: any) => f.rule).sort()).toEqual(["forbiddenPaths", "maxFiles"]);
  });

  it.each([
    [
      ".gitmodules",
      { ".gitmodules": '[submodule "x"]\n\tpath = x\n\turl = https://example.com/x.git\n' },
      /submodules are unsupported.*\.gitmodules/i,
    ],
  ])("answers 400 for a workspace with %s", async (_, files, message) => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(alice.token, project);
    await commitTo(alice.token, project, workspace, files);
    const res = await propose(alice.token, project, workspace);
    expect(res.status).toBe(400);
    expect(res.body.code).toBeUndefined();
    expect(res.body.error).toMatch(message);
  });

  it("answers 400 for a gitlink anywhere in the workspace", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(alice.token, project);
    const { openWorkspaceRepo, readCommit, readRef, writeCommitObject, writeTree, readTree } =
      await import("@/server/git");
    const { updateRef } = await import("@/server/git/refs");
    const repo = openWorkspaceRepo(project.id, workspace);
    const parent = readRef(repo, "refs/heads/main")!;
    const tree = await readTree(repo, (await readCommit(repo, parent)).tree);
    const vendor = await writeTree(repo, [{ mode: "160000", path: "lib", oid: parent, type: "commit" }]);
    const root = await writeTree(repo, [...tree, { mode: "040000", path: "vendor", oid: vendor, type: "tree" }]);
    const person = { name: "x", email: "x@x", timestamp: 1, timezoneOffset: 0 };
    const commit = await writeCommitObject(repo, {
      tree: root,
      parent: [parent],
      author: person,
      committer: person,
      message: "sub\n",
    });
    await updateRef(repo, "refs/heads/main", commit, parent);
    const res = await propose(alice.token, project, workspace);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/submodule \(gitlink\) at vendor\/lib/);
  });

  it("answers 400 for a workspace without changes and 404 for an unknown workspace", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(alice.token, project);
    expect((await propose(alice.token, project, workspace)).status).toBe(400);
    expect((await propose(alice.token, project, "nope")).status).toBe(404);
    expect((await call("POST", `/api/projects/${project.path}/changes`, { token: alice.token, body: {} })).status).toBe(
      400,
    );
    expect((await propose(alice.token, project, "a\u0000b")).status).toBe(400);
  });

  it("enforces access: 401 anonymous, 404 stranger, 403 reader, 409 TARGET_DELETING", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const carol = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await grantCollaborator(project.id, carol.id, "read");
    const workspace = await workspaceOf(alice.token, project);
    await commitTo(alice.token, project, workspace, { "a.txt": "a\n" });
    expect((await call("POST", `/api/projects/${project.path}/changes`, { body: { workspace } })).status).toBe(401);
    expect((await propose(bob.token, project, workspace)).status).toBe(404);
    expect((await propose(carol.token, project, workspace)).status).toBe(403);
    await (await db()).project.update({ where: { id: project.id }, data: { deletingAt: new Date() } });
    const deleting = await propose(alice.token, project, workspace);
    expect(deleting.status).toBe(409);
    expect(deleting.body.code).toBe("TARGET_DELETING");
  });

  it("records an agent's change with its owning user as author, by project id too", async () => {
    const alice = await createTestUser();
    const agent = await createAgentFor(alice.token);
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(agent.token, project);
    await commitTo(agent.token, project, workspace, { "a.txt": "a\n" });
    const res = await call("POST", `/api/projects/${project.id}/changes`, { token: agent.token, body: { workspace } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.change).toMatchObject({ author: { id: alice.id }, agentId: agent.id });
  });
});

describe("GET changes", () => {
  it("lists with a status filter and limit, anonymous on public projects", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" }, "public");
    const good = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const bad = await changeWith(alice.token, project, { "b.txt": `t=${fakeToken()}\n` });
    const all = await call("GET", `/api/projects/${project.path}/changes`);
    expect(all.status).toBe(200);
    expect(all.body.project).toBe(project.path);
    expect(all.body.changes.map((c: any) => c.id)).toEqual([bad.change.id, good.change.id]);
    const accepted = await call("GET", `/api/projects/${project.path}/changes?status=accepted`);
    expect(accepted.body.changes.map((c: any) => c.id)).toEqual([good.change.id]);
    expect((await call("GET", `/api/projects/${project.path}/changes?limit=1`)).body.changes).toHaveLength(1);
    expect((await call("GET", `/api/projects/${project.path}/changes?limit=501`)).status).toBe(400);
    expect((await call("GET", `/api/projects/${project.path}/changes?status=bogus`)).status).toBe(400);
  });

  it("lists by project id too, while a project named changes stays reachable at @ns/changes", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const byId = await call("GET", `/api/projects/${project.id}/changes?status=accepted&limit=5`, {
      token: alice.token,
    });
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(byId.body).toMatchObject({ project: project.path, changes: [{ id: change.id }] });
    expect((await call("HEAD", `/api/projects/${project.id}/changes`, { token: alice.token })).status).toBe(200);
    expect((await call("GET", `/api/projects/${project.id}/changes`, { token: bob.token })).status).toBe(404);
    expect((await call("GET", `/api/projects/${project.id}/changes?limit=0`, { token: alice.token })).body.code).toBe(
      "VALIDATION_ERROR",
    );
    expect((await call("GET", `/api/projects/${crypto.randomUUID()}/changes`, { token: alice.token })).status).toBe(
      404,
    );

    const named = await call("POST", "/api/projects", { token: alice.token, body: { name: "changes" } });
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    const got = await call("GET", `/api/projects/@${alice.username}/changes`, { token: alice.token });
    expect(got.status).toBe(200);
    expect(got.body.path).toBe(`@${alice.username}/changes`);
  });

  it("gets a change with its latest eval runs and per-kind costs; 404 for unknown or unreadable", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const res = await call("GET", `/api/changes/${change.id}`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body.change.id).toBe(change.id);
    expect(res.body.evalRuns).toHaveLength(1);
    expect(res.body.costs).toMatchObject([{ kind: "secretScan", runs: 1, costUsd: 0 }]);
    expect((await call("GET", `/api/changes/${change.id}`, { token: bob.token })).status).toBe(404);
    expect((await call("GET", `/api/changes/${change.id}`)).status).toBe(404);
    expect(
      (await call("GET", "/api/changes/00000000-0000-0000-0000-000000000000", { token: alice.token })).status,
    ).toBe(404);
    expect((await call("GET", "/api/changes/not-a-uuid", { token: alice.token })).status).toBe(404);
  });
});

describe("POST /api/changes/{id}/evaluate", () => {
  it("re-evaluates against the moved base and dismisses approvals", async () => {
    const alice = await createTestUser();
    const bob = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await grantCollaborator(project.id, bob.id, "write");
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const approve = await call("POST", `/api/changes/${change.id}/reviews`, {
      token: bob.token,
      body: { verdict: "approve" },
    });
    expect(approve.body.changeStatus).toBe("approved");

    // Same base: the approval stays.
    const same = await call("POST", `/api/changes/${change.id}/evaluate`, { token: alice.token });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toMatchObject({ changeId: change.id, eval: { round: 2, verdict: "passed" } });
    expect((await call("GET", `/api/changes/${change.id}`, { token: alice.token })).body.change.status).toBe(
      "approved",
    );

    const head = await advanceProject(project, { "other.txt": "o\n" });
    const moved = await call("POST", `/api/changes/${change.id}/evaluate`, { token: alice.token });
    expect(moved.body.eval).toMatchObject({ round: 3, baseSha: head });
    const after = await call("GET", `/api/changes/${change.id}`, { token: alice.token });
    expect(after.body.change).toMatchObject({ status: "accepted", baseSha: head });
    expect(after.body.costs[0].runs).toBe(3);
    const reviews = await call("GET", `/api/changes/${change.id}/reviews`, { token: alice.token });
    expect(reviews.body.reviews).toMatchObject([{ verdict: "approve", dismissed: true }]);
  });

  it("is for users with write access only, and not for merged, rejected or promoted changes", async () => {
    const { owner: alice, reader: carol, agent, project, change } = await ownerReaderAgentChange();
    expect((await call("POST", `/api/changes/${change.id}/evaluate`, { token: agent.token })).status).toBe(401);
    expect((await call("POST", `/api/changes/${change.id}/evaluate`)).status).toBe(401);
    expect((await call("POST", `/api/changes/${change.id}/evaluate`, { token: carol.token })).status).toBe(403);
    expect((await merge(alice.token, change.id)).status).toBe(200);
    expect((await call("POST", `/api/changes/${change.id}/evaluate`, { token: alice.token })).status).toBe(400);
    const other = await changeWith(alice.token, project, { "b.txt": "b\n" });
    await (await db()).change.update({ where: { id: other.change.id }, data: { status: "promoted" } });
    expect((await call("POST", `/api/changes/${other.change.id}/evaluate`, { token: alice.token })).status).toBe(400);
  });
});

describe("POST /api/changes/{id}/reject", () => {
  it("rejects any change but a merged one, users only", async () => {
    const alice = await createTestUser();
    const agent = await createAgentFor(alice.token);
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect((await call("POST", `/api/changes/${change.id}/reject`, { token: agent.token })).status).toBe(401);
    const res = await call("POST", `/api/changes/${change.id}/reject`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ rejected: true, changeId: change.id });
    expect((await call("GET", `/api/changes/${change.id}`, { token: alice.token })).body.change.status).toBe(
      "rejected",
    );
    expect((await eventsOf(project.id, "change.rejected")).length).toBe(1);
    const mergedOne = await changeWith(alice.token, project, { "b.txt": "b\n" });
    expect((await merge(alice.token, mergedOne.change.id)).status).toBe(200);
    expect((await call("POST", `/api/changes/${mergedOne.change.id}/reject`, { token: alice.token })).status).toBe(400);
    expect(
      (await call("POST", "/api/changes/00000000-0000-0000-0000-000000000000/reject", { token: alice.token })).status,
    ).toBe(404);
  });
});
