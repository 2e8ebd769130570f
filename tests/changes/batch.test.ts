import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { openProjectRepo, readRef } from "@/server/git";
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
  POLICY,
  projectWith,
} from "@/server/changes/test-fixtures";

useTestEnvironment();

const headOf = (projectId: string) => readRef(openProjectRepo(projectId), "refs/heads/main")!;
const git = (projectId: string, ...args: string[]) =>
  execFileSync("git", ["--git-dir", openProjectRepo(projectId).gitdir, ...args]).toString();
const batch = (token: string | undefined, path: string, body: unknown) =>
  call("POST", `/api/projects/${path}/changes/merge-batch`, { token, body });

describe("POST /api/projects/{name}/changes/merge-batch", () => {
  it("merges eligible changes onto the head with one branch move; reports conflicted and skipped with reasons", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "shared.txt": "base\n" });
    const a = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const b = await changeWith(alice.token, project, { "b.txt": "b\n", "shared.txt": "from b\n" });
    const c = await changeWith(alice.token, project, { "shared.txt": "from c\n" });
    const secret = await changeWith(alice.token, project, {
      "s.txt": `t=${"ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z4A"}\n`,
    });
    const rejected = await changeWith(alice.token, project, { "r.txt": "r\n" });
    await call("POST", `/api/changes/${rejected.change.id}/reject`, { token: alice.token });
    const moved = await changeWith(alice.token, project, { "m.txt": "m\n" });
    await commitTo(alice.token, project, moved.workspace, { "m.txt": "m2\n" });

    const ids = [
      a.change.id,
      b.change.id,
      c.change.id,
      secret.change.id,
      rejected.change.id,
      moved.change.id,
      "00000000-0000-0000-0000-000000000000",
      a.change.id,
    ];
    const res = await batch(alice.token, project.path, { changeIds: ids });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.merged).toEqual([a.change.id, b.change.id]);
    expect(res.body.conflicted).toEqual([c.change.id]);
    const reasons = Object.fromEntries(res.body.skipped.map((s: any) => [s.changeId, s.reason]));
    expect(reasons[secret.change.id]).toMatch(/^PROTECTION_BLOCKED/);
    expect(reasons[rejected.change.id]).toMatch(/already rejected/);
    expect(reasons[moved.change.id]).toMatch(/^STALE_WORKSPACE/);
    expect(reasons["00000000-0000-0000-0000-000000000000"]).toBe("Not a change of this project");
    for (const key of ["resolveMs", "batchMs", "persistMs", "serverMs"])
      expect(res.body.timings[key]).toBeGreaterThanOrEqual(0);
    expect(res.body.timings.serverMs).toBeGreaterThanOrEqual(res.body.timings.batchMs);

    const head = headOf(project.id);
    expect(res.body.commit).toBe(head);
    expect(git(project.id, "show", `${head}:shared.txt`)).toBe("from b\n");
    expect(git(project.id, "show", `${head}:a.txt`)).toBe("a\n");
    expect(git(project.id, "rev-list", "--first-parent", "--count", head).trim()).toBe("3");
    expect(
      (await eventsOf(project.id, "change.merged")).map((e) => (e.data as { changeId?: string }).changeId),
    ).toEqual([a.change.id, b.change.id]);
    const statuses = await call("GET", `/api/projects/${project.path}/changes?status=merged`, { token: alice.token });
    expect(statuses.body.changes.map((x: any) => x.id).sort()).toEqual([a.change.id, b.change.id].sort());
  });

  it("skips changes evaluated on an older head with STALE_BASE", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const a = await changeWith(alice.token, project, { "a.txt": "a\n" });
    await advanceProject(project, { "x.txt": "x\n" });
    const res = await batch(alice.token, project.path, { changeIds: [a.change.id] });
    expect(res.status).toBe(200);
    expect(res.body.merged).toEqual([]);
    expect(res.body.skipped[0].reason).toMatch(/^STALE_BASE/);
  });

  it("force needs merge.allowForce (403 PROTECTION_BLOCKED) and then merges a failed change", async () => {
    const alice = await createTestUser();
    const strict = await projectWith(alice.token, { "README.md": "hi\n" });
    const a = await changeWith(alice.token, strict, { "a.txt": "a\n" });
    const refused = await batch(alice.token, strict.path, { changeIds: [a.change.id], force: true });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("PROTECTION_BLOCKED");
    const lenient = await projectWith(alice.token, { [POLICY]: "requiredApprovals: 3\nmerge: { allowForce: true }\n" });
    const b = await changeWith(alice.token, lenient, { "b.txt": "b\n" });
    expect((await batch(alice.token, lenient.path, { changeIds: [b.change.id] })).body.skipped).toHaveLength(1);
    const forced = await batch(alice.token, lenient.id, { changeIds: [b.change.id], force: true });
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect(forced.body.merged).toEqual([b.change.id]);
  });

  it("validates input and access: 400, 401, 403, 404", async () => {
    const alice = await createTestUser();
    const carol = await createTestUser();
    const stranger = await createTestUser();
    const agent = await createAgentFor(alice.token);
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await grantCollaborator(project.id, carol.id, "read");
    const tooMany = Array.from({ length: 81 }, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`);
    expect((await batch(alice.token, project.path, { changeIds: tooMany })).status).toBe(400);
    expect((await batch(alice.token, project.path, { changeIds: [] })).status).toBe(400);
    expect((await batch(alice.token, project.path, {})).status).toBe(400);
    expect((await batch(agent.token, project.path, { changeIds: [tooMany[0]] })).status).toBe(401);
    expect((await batch(undefined, project.path, { changeIds: [tooMany[0]] })).status).toBe(401);
    expect((await batch(carol.token, project.path, { changeIds: [tooMany[0]] })).status).toBe(403);
    expect((await batch(stranger.token, project.path, { changeIds: [tooMany[0]] })).status).toBe(404);
    const ok = await batch(alice.token, project.path, { changeIds: tooMany.slice(0, 80) });
    expect(ok.status).toBe(200);
    expect(ok.body.skipped).toHaveLength(80);
  });
});
