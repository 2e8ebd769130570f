import { describe, expect, it } from "vitest";
import { actorOf } from "@/server/auth";
import { db } from "@/server/db/client";
import { advanceProject, changeWith, eventsOf, merge, POLICY, projectWith } from "@/server/changes/test-fixtures";
import { branchRef, openProjectRepo, readRef, runGit, writeCommitFromFiles } from "@/server/git";
import { applyPush } from "@/server/git-http/push";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { deploymentRows, deploysPolicy, mergeChange, projectDeploying } from "./support";

// No queue: the rows stay `queued`, which is all these tests look at (lifecycle.test.ts runs them).
useTestEnvironment({ DEPLOY_QUEUE: "off" });

const entry = (extra: Record<string, unknown> = {}) => ({
  name: "production",
  provider: "webhook",
  url: "https://deploy.example.com/hook",
  ...extra,
});
const author = { name: "x", email: "x@example.com" };

describe("every path that moves a deployed branch requests deployments", () => {
  it("a batch merge: one deployment of the batch's tip, carrying the last merged change", async () => {
    const owner = await createTestUser();
    const project = await projectDeploying(owner.token, entry());
    const a = await changeWith(owner.token, project, { "a.txt": "a\n" });
    const b = await changeWith(owner.token, project, { "b.txt": "b\n" });
    const res = await call("POST", `/api/projects/${project.path}/changes/merge-batch`, {
      token: owner.token,
      body: { changeIds: [a.change.id, b.change.id] },
    });
    expect(res.status, res.text).toBe(200);
    const rows = await deploymentRows(project.id);
    expect(rows.map((row) => [row.commit, row.changeId, row.status, row.requestedBy])).toEqual([
      [res.body.commit, b.change.id, "queued", `user:${owner.id}`],
    ]);
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
    const project = await projectWith(owner.token, {
      "README.md": "hi\n",
      [POLICY]: `merge: { requireFreshBase: false }\n${deploysPolicy(entry())}`,
    });
    const { change } = await changeWith(owner.token, project, { "README.md": "workspace\n" });
    await advanceProject(project, { "README.md": "project\n" });
    const conflicted = await merge(owner.token, change.id);
    expect(conflicted.body.code, conflicted.text).toBe("MERGE_CONFLICT");
    const conflictId = conflicted.body.conflictId;
    const res = await call("POST", `/api/projects/conflicts/${conflictId}/resolve`, {
      token: owner.token,
      body: { strategy: "accept-workspace" },
    });
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
    const identity = {
      kind: "user" as const,
      userId: owner.id,
      username: owner.username,
      isAdmin: false,
      via: "legacy" as const,
      scope: "read_write" as const,
    };
    const scope = { project: row, repo, defaultBranch: "main" };
    // On top of main's tip, so it keeps the policy.
    const side = (await writeCommitFromFiles(repo, { files: { "s.txt": "s\n" }, message: "s", author, parent: head }))
      .oid;

    expect(await applyPush(identity, scope, [{ ref: "refs/heads/release", oldOid: null, newOid: side }])).toEqual([
      { ref: "refs/heads/release", ok: true },
    ]);
    expect(
      (await deploymentRows(project.id)).map((r) => [r.name, r.branch, r.commit, r.changeId, r.requestedBy]),
    ).toEqual([["release", "release", side, null, actorOf(identity)]]);

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

describe("a branch created or deleted over the API moves through the same door as a push", () => {
  it("POST .../branches on a branch an entry names requests its deployment, as a push does; another branch requests none", async () => {
    const owner = await createTestUser();
    const project = await projectDeploying(owner.token, entry({ name: "release", branch: "release" }));
    const head = readRef(openProjectRepo(project.id), branchRef("main"))!;
    const other = await call("POST", `/api/projects/${project.path}/branches`, {
      token: owner.token,
      body: { name: "feature" },
    });
    expect(other.status, other.text).toBe(201);
    expect(await deploymentRows(project.id)).toHaveLength(0);
    const created = await call("POST", `/api/projects/${project.path}/branches`, {
      token: owner.token,
      body: { name: "release" },
    });
    expect(created.status, created.text).toBe(201);
    const rows = await deploymentRows(project.id);
    expect(rows.map((row) => [row.name, row.branch, row.commit, row.changeId, row.requestedBy])).toEqual([
      ["release", "release", head, null, `user:${owner.id}`],
    ]);
    expect(await eventsOf(project.id, "deployment.requested")).toHaveLength(1);
  });

  it("each creation and deletion records the push event a git push records: a deletion's `after` is null, over REST or a push", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const repo = openProjectRepo(project.id);
    const head = readRef(repo, branchRef("main"))!;
    const pushes = async () => (await eventsOf(project.id, "push")).map((event) => event.data);

    expect(
      (await call("POST", `/api/projects/${project.path}/branches`, { token: owner.token, body: { name: "topic" } }))
        .status,
    ).toBe(201);
    expect((await call("DELETE", `/api/projects/${project.path}/branches/topic`, { token: owner.token })).status).toBe(
      200,
    );
    expect(readRef(repo, branchRef("topic"))).toBeNull();
    expect(await pushes()).toEqual([
      { ref: "refs/heads/topic", before: null, after: head },
      { ref: "refs/heads/topic", before: head, after: null },
    ]);

    const prisma = await db();
    const row = await prisma.project.findUniqueOrThrow({ where: { id: project.id } });
    const identity = {
      kind: "user" as const,
      userId: owner.id,
      username: owner.username,
      isAdmin: false,
      via: "legacy" as const,
      scope: "read_write" as const,
    };
    const scope = { project: row, repo, defaultBranch: "main" };
    expect(await applyPush(identity, scope, [{ ref: "refs/heads/pushed", oldOid: null, newOid: head }])).toEqual([
      { ref: "refs/heads/pushed", ok: true },
    ]);
    expect(await applyPush(identity, scope, [{ ref: "refs/heads/pushed", oldOid: head, newOid: null }])).toEqual([
      { ref: "refs/heads/pushed", ok: true },
    ]);
    expect((await pushes()).slice(2)).toEqual([
      { ref: "refs/heads/pushed", before: null, after: head },
      { ref: "refs/heads/pushed", before: head, after: null },
    ]);
  });

  it("the API keeps the naming rules: an existing branch, a name beside a packed one, the default branch", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const post = (body: Record<string, unknown>) =>
      call("POST", `/api/projects/${project.path}/branches`, { token: owner.token, body });
    expect((await post({ name: "feature/x" })).status).toBe(201);
    expect((await post({ name: "feature/x" })).body.code).toBe("BRANCH_EXISTS");
    await runGit(["pack-refs", "--all"], { gitdir: openProjectRepo(project.id).gitdir });
    expect((await post({ name: "feature" })).body.code).toBe("BRANCH_NAME_CONFLICT");
    expect((await post({ name: "feature/x/y" })).body.code).toBe("BRANCH_NAME_CONFLICT");
    for (const bad of ["-x", "a..b", "x.lock", "a/.b", "HEAD", "end/"])
      expect((await post({ name: bad })).status).toBe(400);
    expect((await post({ name: "y", startPoint: "f".repeat(40) })).status).toBe(400);
    expect(
      (await call("DELETE", `/api/projects/${project.path}/branches/main`, { token: owner.token })).body.code,
    ).toBe("DEFAULT_BRANCH_PROTECTED");
    expect((await call("DELETE", `/api/projects/${project.path}/branches/nope`, { token: owner.token })).status).toBe(
      404,
    );
    expect(
      (await call("DELETE", `/api/projects/${project.path}/branches/feature%2Fx`, { token: owner.token })).status,
    ).toBe(200);
    expect((await post({ name: "feature" })).status).toBe(201);
  });
});
