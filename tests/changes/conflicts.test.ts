import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { openProjectRepo, readCommit, readRef } from "@/server/git";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { startStubServer } from "@/server/evaluators/stub-server";
import { advanceProject, changeWith, eventsOf, merge, POLICY, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

const headOf = (projectId: string) => readRef(openProjectRepo(projectId), "refs/heads/main")!;
const show = (projectId: string, commit: string, file: string) =>
  execFileSync("git", ["--git-dir", openProjectRepo(projectId).gitdir, "show", `${commit}:${file}`]).toString();
const resolve = (token: string | undefined, id: string, body: unknown) =>
  call("POST", `/api/projects/conflicts/${id}/resolve`, { token, body });

/** A change conflicting with the project on a.txt (and cleanly adding c.txt). */
async function conflicted(policy = "merge: { requireFreshBase: false }\n") {
  const alice = await createTestUser();
  const project = await projectWith(alice.token, { [POLICY]: policy, "a.txt": "1\n", "b.txt": "b\n" });
  const { change } = await changeWith(alice.token, project, { "a.txt": "workspace\n", "c.txt": "c\n" });
  await advanceProject(project, { "a.txt": "project\n" });
  const res = await merge(alice.token, change.id);
  expect(res.body.code).toBe("MERGE_CONFLICT");
  return { alice, project, change, conflictId: res.body.conflictId as string };
}

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  delete process.env.ALLOW_PRIVATE_TARGETS;
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("POST /api/projects/conflicts/{id}/resolve", () => {
  it.each([
    ["accept-project", "project\n"],
    ["accept-workspace", "workspace\n"],
  ])("%s lands a merge commit with that side and closes the conflict", async (strategy, expected) => {
    const { alice, project, change, conflictId } = await conflicted();
    const before = headOf(project.id);
    const res = await resolve(alice.token, conflictId, { strategy });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "resolved", commitSha: headOf(project.id) });
    expect(show(project.id, res.body.commitSha, "a.txt")).toBe(expected);
    expect(show(project.id, res.body.commitSha, "c.txt")).toBe("c\n");
    const landed = await readCommit(openProjectRepo(project.id), res.body.commitSha);
    expect(landed.parent).toEqual([before, change.tipSha]);
    expect(landed.message).toMatch(
      new RegExp(
        `^Merge change !${change.number} '${change.title}' \\(\\S+\\)\\n\\nMerged change !${change.number} '${change.title}' by \\S+ from workspace \\S+\\.\\n\\nConflicts resolved \\(${strategy}\\): a\\.txt\\n\\nChange-Id: ${change.id}\\n$`,
      ),
    );
    expect((await call("GET", `/api/changes/${change.id}`, { token: alice.token })).body.change.status).toBe("merged");
    expect((await eventsOf(project.id, "change.merged")).length).toBe(1);
    const again = await resolve(alice.token, conflictId, { strategy });
    expect(again.status).toBe(410);
  });

  it("manual: applies the given contents", async () => {
    const { alice, project, conflictId } = await conflicted();
    const res = await resolve(alice.token, conflictId, {
      strategy: "manual",
      resolutions: [{ file: "a.txt", content: "both\n" }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(show(project.id, res.body.commitSha, "a.txt")).toBe("both\n");
  });

  it.each([
    ["an unknown strategy", { strategy: "theirs" }, 400, "INVALID_INPUT"],
    ["manual without resolutions", { strategy: "manual" }, 400, "INVALID_INPUT"],
    ["a malformed resolution", { strategy: "manual", resolutions: [{ file: "a.txt" }] }, 400, "INVALID_INPUT"],
    [
      "a path outside the repository",
      { strategy: "manual", resolutions: [{ file: "../etc/passwd", content: "x" }] },
      422,
      "INVALID_PATH",
    ],
    ["a .git path", { strategy: "manual", resolutions: [{ file: ".git/config", content: "x" }] }, 422, "INVALID_PATH"],
    [
      "a file over 10 MB",
      { strategy: "manual", resolutions: [{ file: "a.txt", content: "x".repeat(10_000_001) }] },
      422,
      "INVALID_INPUT",
    ],
    [
      "a resolution missing a conflicting file",
      { strategy: "manual", resolutions: [{ file: "other.txt", content: "x" }] },
      422,
      undefined,
    ],
  ])("refuses %s", async (_, body, status, code) => {
    const { alice, conflictId } = await (shared ??= conflicted());
    const res = await resolve(alice.token, conflictId, body);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
    expect(res.body.code).toBe(code);
  });
  let shared: ReturnType<typeof conflicted> | undefined;

  it("SECRET_DETECTED when the resolution adds a secret; nothing lands", async () => {
    const { alice, project, conflictId } = await conflicted();
    const before = headOf(project.id);
    const secret = "AKIA" + "QWERTYUIOPASDFGH";
    const res = await resolve(alice.token, conflictId, {
      strategy: "manual",
      resolutions: [{ file: "a.txt", content: `key=${secret}\n` }],
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("SECRET_DETECTED");
    expect(res.body.issues[0]).toContain("a.txt:1");
    expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(headOf(project.id)).toBe(before);
  });

  it("EVALUATION_FAILED when a policy evaluator rejects the resolution", async () => {
    process.env.ALLOW_PRIVATE_TARGETS = "1";
    const stub = await startStubServer((request) => ({
      body: request.body.change.files.some((f: any) => f.path === "a.txt")
        ? { verdict: "fail", issues: ["a.txt is frozen"] }
        : { verdict: "pass" },
    }));
    servers.push(stub);
    const alice = await createTestUser();
    const project = await projectWith(alice.token, {
      [POLICY]: "merge: { requireFreshBase: false }\n",
      "a.txt": "1\n",
    });
    const { change } = await changeWith(alice.token, project, { "b.txt": "b\n" });
    // The change itself passes (no webhook yet); the policy gains a webhook that rejects a.txt edits.
    await advanceProject(project, {
      "b.txt": "project b\n",
      [POLICY]: `merge: { requireFreshBase: false }\nevaluators: { webhook: { url: "${stub.url}" } }\n`,
    });
    const conflict = await merge(alice.token, change.id);
    expect(conflict.body.code).toBe("MERGE_CONFLICT");
    const rejected = await resolve(alice.token, conflict.body.conflictId, {
      strategy: "manual",
      resolutions: [
        { file: "b.txt", content: "b\n" },
        { file: "a.txt", content: "2\n" },
      ],
    });
    expect(rejected.status).toBe(422);
    expect(rejected.body).toMatchObject({ code: "EVALUATION_FAILED", issues: ["webhook: a.txt is frozen"] });
    const accepted = await resolve(alice.token, conflict.body.conflictId, { strategy: "accept-workspace" });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  });

  it("410 for an unknown id; 404 for a stranger; 403 for a reader; 401 anonymous", async () => {
    const { project, conflictId } = await conflicted();
    const stranger = await createTestUser();
    const reader = await createTestUser();
    await grantCollaborator(project.id, reader.id, "read");
    expect(
      (await resolve(stranger.token, "00000000-0000-0000-0000-000000000000", { strategy: "accept-project" })).status,
    ).toBe(410);
    expect((await resolve(stranger.token, "nope", { strategy: "accept-project" })).status).toBe(410);
    expect((await resolve(stranger.token, conflictId, { strategy: "accept-project" })).status).toBe(404);
    expect((await resolve(reader.token, conflictId, { strategy: "accept-project" })).status).toBe(403);
    expect((await resolve(undefined, conflictId, { strategy: "accept-project" })).status).toBe(401);
  });

  it("STALE_PROJECT when the default branch moves between evaluation and commit", async () => {
    process.env.ALLOW_PRIVATE_TARGETS = "1";
    // The webhook evaluator runs between the resolution's merge and its commit: the branch moves while it answers.
    const stub = await startStubServer(() => ({ body: { verdict: "pass" }, delayMs: 400 }));
    servers.push(stub);
    const alice = await createTestUser();
    const project = await projectWith(alice.token, {
      [POLICY]: `merge: { requireFreshBase: false }\nevaluators: { webhook: { url: "${stub.url}" } }\n`,
      "a.txt": "1\n",
    });
    const { change } = await changeWith(alice.token, project, { "a.txt": "workspace\n" });
    await advanceProject(project, { "a.txt": "project\n" });
    const conflict = await merge(alice.token, change.id);
    expect(conflict.body.code).toBe("MERGE_CONFLICT");
    const original = stub.requests.length;
    const pending = resolve(alice.token, conflict.body.conflictId, { strategy: "accept-workspace" });
    while (stub.requests.length === original) await new Promise((r) => setTimeout(r, 5));
    await advanceProject(project, { "z.txt": "z\n" });
    const res = await pending;
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.code).toBe("STALE_PROJECT");
    expect(show(project.id, headOf(project.id), "a.txt")).toBe("project\n");
    // Nothing committed: the conflict is still open and can be resolved now.
    expect((await resolve(alice.token, conflict.body.conflictId, { strategy: "accept-workspace" })).status).toBe(200);
  });
});
