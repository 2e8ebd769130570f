import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { openProjectRepo, readCommit, readRef } from "@/server/git";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { startReceiver, type Receiver } from "@/server/webhooks/test-receiver";
import {
  advanceProject,
  changeWith,
  eventsOf,
  merge,
  ownerReaderAgentChange,
  POLICY,
  projectWith,
  type TestProject,
} from "@/server/changes/test-fixtures";
import { GitClient, startTestServer, withToken, type TestServer } from "@/tests/git/support";

// Webhooks reach a receiver on 127.0.0.1; the delivery jobs run on the embedded executor.
useTestEnvironment({ ALLOW_PRIVATE_TARGETS: "1" });
useTestJobs();

let server: TestServer;
let git: GitClient;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  git = new GitClient();
  receiver = await startReceiver();
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  git?.cleanup();
});

const revert = (token: string | undefined, changeId: string) =>
  call("POST", `/api/changes/${changeId}/revert`, { token });
const headOf = (projectId: string) => readRef(openProjectRepo(projectId), "refs/heads/main")!;

/** A project with README and a.txt, and a merged change that edits a.txt and adds b.txt. */
async function mergedChange(token: string, files: Record<string, string> = {}) {
  const project = await projectWith(token, { "README.md": "hi\n", "a.txt": "1\n2\n3\n", ...files });
  const { change } = await changeWith(token, project, { "a.txt": "ONE\n2\n3\n", "b.txt": "b\n" });
  const merged = await merge(token, change.id);
  expect(merged.status, JSON.stringify(merged.body)).toBe(200);
  return { project, change, mergedSha: merged.body.commit as string };
}

async function cloneOf(project: TestProject, token: string): Promise<string> {
  const dir = git.dir(`clone-${project.id}`);
  await git.ok(["clone", "-q", withToken(`${server.baseUrl}/${project.path}.git`, token), dir]);
  return dir;
}

describe("POST /api/changes/{id}/revert", () => {
  it("writes one commit that undoes the merge, keeps later commits, and records the revert on the change", async () => {
    const alice = await createTestUser();
    const { project, change, mergedSha } = await mergedChange(alice.token);
    const later = await advanceProject(project, { "c.txt": "later\n", "a.txt": "ONE\n2\nTHREE\n" });

    const res = await revert(alice.token, change.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ reverted: true, changeId: change.id, commit: headOf(project.id) });
    const commit = await readCommit(openProjectRepo(project.id), res.body.commit);
    expect(commit.parent).toEqual([later]);
    expect(commit.message).toMatch(new RegExp(`^Revert .+\\n[\\s\\S]*\\nReverts-Change: ${change.id}\\n$`));
    expect(commit.message).toContain(mergedSha);

    const work = await cloneOf(project, alice.token);
    const read = (file: string) => fs.readFileSync(path.join(work, file), "utf8");
    expect(await git.ok(["log", "-1", "--format=%H%n%(trailers:key=Reverts-Change,valueonly)"], { cwd: work })).toBe(
      `${res.body.commit}\n${change.id}`,
    );
    expect(read("a.txt")).toBe("1\n2\nTHREE\n");
    expect(fs.existsSync(path.join(work, "b.txt"))).toBe(false);
    expect(read("c.txt")).toBe("later\n");
    expect(read("README.md")).toBe("hi\n");

    const got = await call("GET", `/api/changes/${change.id}`, { token: alice.token });
    expect(got.body.change).toMatchObject({
      status: "merged",
      mergedSha,
      revertedSha: res.body.commit,
      revertedById: alice.id,
      revertedAt: expect.any(String),
    });
  });

  it("makes change.reverted visible in the activity and to subscribed webhooks", async () => {
    const alice = await createTestUser();
    const { project, change } = await mergedChange(alice.token);
    const hook = await call("POST", `/api/projects/${project.path}/webhooks`, {
      token: alice.token,
      body: { url: receiver.url, events: "change.reverted" },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const before = receiver.received.length;

    const res = await revert(alice.token, change.id);
    expect(res.status).toBe(200);
    const activity = await call("GET", `/api/projects/${project.path}/activity`, { token: alice.token });
    expect(activity.status).toBe(200);
    expect(activity.body.events[0]).toMatchObject({
      kind: "change.reverted",
      actor: `user:${alice.id}`,
      data: { changeId: change.id, commit: res.body.commit },
    });

    await drainJobs();
    const delivered = receiver.received.slice(before).map((r) => JSON.parse(r.body));
    expect(delivered).toMatchObject([
      { kind: "change.reverted", data: { changeId: change.id, commit: res.body.commit } },
    ]);
  });

  it("answers 400 for a change that is not merged or already reverted", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change: open } = await changeWith(alice.token, project, { "x.txt": "x\n" });
    const notMerged = await revert(alice.token, open.id);
    expect(notMerged.status).toBe(400);
    expect(notMerged.body.error).toMatch(/merged/);

    const { project: other, change } = await mergedChange(alice.token);
    expect((await revert(alice.token, change.id)).status).toBe(200);
    const head = headOf(other.id);
    const again = await revert(alice.token, change.id);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatch(/already reverted/);
    expect(headOf(other.id)).toBe(head);
  });

  it("refuses agents (401), anonymous callers (401), readers (403) and unknown or unreadable changes (404)", async () => {
    const { owner, reader, agent, change } = await ownerReaderAgentChange();
    const stranger = await createTestUser();
    expect((await revert(agent.token, change.id)).status).toBe(401);
    expect((await revert(undefined, change.id)).status).toBe(401);
    expect((await revert(reader.token, change.id)).status).toBe(403);
    expect((await revert(stranger.token, change.id)).status).toBe(404);
    expect((await revert(owner.token, "00000000-0000-0000-0000-000000000000")).status).toBe(404);
    expect((await revert(owner.token, "not-a-change")).status).toBe(404);
  });

  it("answers 409 TARGET_DELETING while the project is being deleted", async () => {
    const alice = await createTestUser();
    const { project, change } = await mergedChange(alice.token);
    await (await db()).project.update({ where: { id: project.id }, data: { deletingAt: new Date() } });
    const res = await revert(alice.token, change.id);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("TARGET_DELETING");
  });

  it("answers 403 PROTECTION_BLOCKED with reasons while the default branch is locked", async () => {
    const alice = await createTestUser();
    const { project, change } = await mergedChange(alice.token);
    const locked = await advanceProject(project, { [POLICY]: "protection:\n  locked: true\n" });
    const res = await revert(alice.token, change.id);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: "PROTECTION_BLOCKED",
      reasons: ["The default branch is locked (protection.locked)"],
    });
    expect(headOf(project.id)).toBe(locked);
  });

  it("answers 409 MERGE_CONFLICT with the conflicting files when later commits changed the same lines; nothing is written", async () => {
    const alice = await createTestUser();
    const { project, change } = await mergedChange(alice.token);
    const later = await advanceProject(project, { "a.txt": "UNO\n2\n3\n" });
    const res = await revert(alice.token, change.id);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "MERGE_CONFLICT", conflictingFiles: ["a.txt"] });
    expect(res.body.conflictId).toBeUndefined();
    expect(headOf(project.id)).toBe(later);
    expect(await (await db()).conflict.count({ where: { projectId: project.id } })).toBe(0);
    expect(await eventsOf(project.id, "change.reverted")).toEqual([]);
  });

  it("two reverts of one change at once: one lands, the other is refused; one commit, one event", async () => {
    const alice = await createTestUser();
    const { project, change, mergedSha } = await mergedChange(alice.token);
    const results = await Promise.all([revert(alice.token, change.id), revert(alice.token, change.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = results.find((r) => r.status === 200)!;
    expect(headOf(project.id)).toBe(winner.body.commit);
    expect((await readCommit(openProjectRepo(project.id), winner.body.commit)).parent).toEqual([mergedSha]);
    expect(await eventsOf(project.id, "change.reverted")).toHaveLength(1);
  });
});
