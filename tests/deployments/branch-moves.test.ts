import { describe, expect, it } from "vitest";
import { actorOf } from "@/server/auth";
import { db } from "@/server/db/client";
import { advanceProject, changeWith, eventsOf, merge, POLICY, projectWith } from "@/server/changes/test-fixtures";
import { branchRef, openProjectRepo, readRef, writeCommitFromFiles } from "@/server/git";
import { applyPush } from "@/server/git-http/push";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { deploymentRows, deploysPolicy, mergeChange, projectDeploying } from "./support";

// No queue: the rows stay `queued`, which is all these tests look at (lifecycle.test.ts runs them).
useTestEnvironment({ DEPLOY_QUEUE: "off" });

const entry = (extra: Record<string, unknown> = {}) => ({ name: "production", provider: "webhook", url: "https://deploy.example.com/hook", ...extra });
const author = { name: "x", email: "x@example.com" };

describe("every path that moves a deployed branch requests deployments", () => {
  it("a batch merge: one deployment of the batch's tip, carrying the last merged change", async () => {
    const owner = await createTestUser();
    const project = await projectDeploying(owner.token, entry());
    const a = await changeWith(owner.token, project, { "a.txt": "a\n" });
    const b = await changeWith(owner.token, project, { "b.txt": "b\n" });
    const res = await call("POST", `/api/projects/${project.path}/changes/merge-batch`, { token: owner.token, body: { changeIds: [a.change.id, b.change.id] } });
    expect(res.status, res.text).toBe(200);
    const rows = await deploymentRows(project.id);
    expect(rows.map((row) => [row.commit, row.changeId, row.status, row.requestedBy])).toEqual([[res.body.commit, b.change.id, "queued", `user:${owner.id}`]]);
  });

  it("a revert", async () => {
    const owner = await createTestUser();
    const project = await projectDeploying(owner.token, entry());
    const { changeId } = await mergeChange(owner.token, project, { "r.txt": "r\n" });
    const res = await call("POST", `/api/changes/${changeId}/revert`, { token: owner.token });
    expect(res.status, res.text).toBe(200);
    const rows = await deploymentRows(project.id);
    expect(rows.map((row) => [row.commit, row.changeId])).toContainEqual([res.body.commit, changeId]);
    expect(rows).toHaveLength(2);
  });

  it("a conflict resolution", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n", [POLICY]: `merge: { requireFreshBase: false }\n${deploysPolicy(entry())}` });
    const { change } = await changeWith(owner.token, project, { "README.md": "workspace\n" });
    await advanceProject(project, { "README.md": "project\n" });
    const conflicted = await merge(owner.token, change.id);
    expect(conflicted.body.code, conflicted.text).toBe("MERGE_CONFLICT");
    const conflictId = conflicted.body.conflictId;
    const res = await call("POST", `/api/projects/conflicts/${conflictId}/resolve`, { token: owner.token, body: { strategy: "accept-workspace" } });
    expect(res.status, res.text).toBe(200);
    const rows = await deploymentRows(project.id);
    expect(rows.map((row) => [row.commit, row.changeId])).toEqual([[res.body.commitSha, change.id]]);
  });

  it("a plain push to the branch an entry names, and only to it; the same commit is not requested twice", async () => {
    const owner = await createTestUser();
    const project = await projectDeploying(owner.token, entry(), entry({ name: "release", branch: "release" }));
    const prisma = await db();
    const row = await prisma.project.findUniqueOrThrow({ where: { id: project.id } });
    const repo = openProjectRepo(project.id);
    const head = readRef(repo, branchRef("main"))!;
    const identity = { kind: "user" as const, userId: owner.id, username: owner.username, isAdmin: false, via: "legacy" as const, scope: "read_write" as const };
    const scope = { project: row, repo, defaultBranch: "main" };
    // On top of main's tip, so it keeps the policy.
    const side = (await writeCommitFromFiles(repo, { files: { "s.txt": "s\n" }, message: "s", author, parent: head })).oid;

    expect(await applyPush(identity, scope, [{ ref: "refs/heads/release", oldOid: null, newOid: side }])).toEqual([{ ref: "refs/heads/release", ok: true }]);
    expect((await deploymentRows(project.id)).map((r) => [r.name, r.branch, r.commit, r.changeId, r.requestedBy])).toEqual([["release", "release", side, null, actorOf(identity)]]);

    await applyPush(identity, scope, [{ ref: "refs/heads/feature", oldOid: null, newOid: side }]);
    expect(await deploymentRows(project.id)).toHaveLength(1);

    await applyPush(identity, scope, [{ ref: "refs/heads/main", oldOid: head, newOid: side }]);
    await applyPush(identity, scope, [{ ref: "refs/heads/main", oldOid: side, newOid: head }]);
    await applyPush(identity, scope, [{ ref: "refs/heads/main", oldOid: head, newOid: side }]);
    const production = (await deploymentRows(project.id)).filter((r) => r.name === "production");
    expect(production.map((r) => r.commit).sort()).toEqual([head, side].sort());
    expect((await eventsOf(project.id, "deployment.requested")).length).toBe(3);
  });

  it("a policy merged in the same change already applies to it; an invalid policy requests nothing", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    await mergeChange(owner.token, project, { [POLICY]: deploysPolicy(entry()) });
    expect(await deploymentRows(project.id)).toHaveLength(1);
    await mergeChange(owner.token, project, { [POLICY]: deploysPolicy(entry({ provider: "ftp" })) });
    expect(await deploymentRows(project.id)).toHaveLength(1);
  });
});
