import { createHmac } from "node:crypto";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { branchRef, openProjectRepo, readRef } from "@/server/git";
import { queueDueSyncs } from "@/server/imports";
import { withEnv } from "@/tests/support/env";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { changeWith, merge } from "@/server/changes/test-fixtures";
import { deploymentRows, deploysPolicy } from "@/tests/deployments/support";
import { eventKinds, projectBase, projectRow, requestImport, uniqueName, useStubProvider } from "./support";

useTestEnvironment();
useTestJobs();
const stub = useStubProvider();

type User = Awaited<ReturnType<typeof createTestUser>>;

/** A completed import of a fresh upstream repository `octo/<repo>` into a new user's namespace. */
async function imported(
  files: Array<Record<string, string>> = [{ "README.md": "hi\n" }, { "a.txt": "a\n" }],
  depth?: number,
) {
  const user = await createTestUser();
  const repo = uniqueName("up");
  stub.current.seed("octo", repo, files);
  const slug = uniqueName("s");
  expect(
    (await requestImport(user, slug, { url: `${stub.current.url}/octo/${repo}`, ...(depth ? { depth } : {}) })).status,
  ).toBe(201);
  await drainJobs({ timeoutMs: 60_000 });
  const project = await projectRow(user.username, slug);
  return {
    user,
    repo,
    slug,
    project,
    base: projectBase(user.username, slug),
    path: `@${user.username}/${slug}`,
    tip: () => readRef(openProjectRepo(project.id), branchRef("main")),
  };
}

const sync = (user: User, base: string) => call("POST", `${base}/sync`, { token: user.token });

describe("POST /sync", { timeout: 120_000 }, () => {
  it("answers hasUpdates false when up to date; fast-forwards new upstream commits through a queued job with sync.completed and history", async () => {
    const p = await imported();
    const none = await sync(p.user, p.base);
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({
      hasUpdates: false,
      commitsBehind: 0,
      latestCommit: p.tip(),
      lastSyncedCommit: p.tip(),
    });
    const before = p.tip();
    const added = stub.current.addCommits("octo", p.repo, [{ "b.txt": "b\n" }, { "c.txt": "c\n" }, { "d.txt": "d\n" }]);
    const queued = await sync(p.user, p.base);
    expect(queued.body).toMatchObject({
      status: "queued",
      hasUpdates: true,
      commitsBehind: 3,
      latestCommit: added[2],
      lastSyncedCommit: before,
    });
    // The provider counted them (compare API); only the job fetches.
    expect(
      stub.current.requests.filter((r) => r.method === "GET" && r.path.endsWith(`/compare/${before}...${added[2]}`)),
    ).toHaveLength(1);
    expect(readRef(openProjectRepo(p.project.id), "refs/svc/upstream/main")).not.toBe(added[2]);
    expect((await sync(p.user, p.base)).status).toBe(400);
    const status = await call("GET", `${p.base}/sync/status`, { token: p.user.token });
    expect(status.body).toMatchObject({ status: "queued", hasUpdates: true, commitsBehind: 3, latestCommit: added[2] });
    await drainJobs({ timeoutMs: 60_000 });
    expect(p.tip()).toBe(added[2]);
    const after = await call("GET", `${p.base}/sync/status`, { token: p.user.token });
    expect(after.body).toMatchObject({
      status: "succeeded",
      hasUpdates: false,
      commitsBehind: 0,
      lastSyncedCommit: added[2],
      error: null,
      autoSyncEnabled: false,
      syncFrequency: 60,
    });
    const history = await call("GET", `${p.base}/sync/history`, { token: p.user.token });
    expect(history.body.history).toHaveLength(1);
    expect(history.body.history[0]).toMatchObject({
      trigger: "manual",
      status: "succeeded",
      fromCommit: before,
      toCommit: added[2],
      commitsSynced: 3,
      error: null,
    });
    expect(history.body.history[0].durationMs).toBeGreaterThanOrEqual(0);
    const events = (await eventKinds(p.project.id)).filter((event) => event.kind === "sync.completed");
    expect(events.map((event) => event.data)).toMatchObject([
      { fromCommit: before, toCommit: added[2], commitsSynced: 3 },
    ]);
  });

  it("a sync moving the default branch requests the policy's deployments, as a merge does", async () => {
    const p = await imported([
      {
        "README.md": "hi\n",
        ".svc/policy.yml": deploysPolicy({
          name: "production",
          provider: "webhook",
          url: "https://deploy.example.com/hook",
        }),
      },
    ]);
    const [added] = stub.current.addCommits("octo", p.repo, [{ "b.txt": "b\n" }]);
    expect((await sync(p.user, p.base)).body.hasUpdates).toBe(true);
    await drainJobs({ timeoutMs: 60_000 });
    expect(p.tip()).toBe(added);
    const rows = await deploymentRows(p.project.id);
    expect(
      rows.filter((row) => row.commit === added).map((row) => [row.name, row.branch, row.changeId, row.requestedBy]),
    ).toEqual([["production", "main", null, "system"]]);
  });

  it("merges cleanly when local merges and upstream commits coexist", async () => {
    const p = await imported();
    const { change } = await changeWith(p.user.token, { id: p.project.id, path: p.path } as never, {
      "local.txt": "mine\n",
    });
    expect((await merge(p.user.token, change.id)).status).toBe(200);
    const local = p.tip()!;
    const [upstream] = stub.current.addCommits("octo", p.repo, [{ "upstream.txt": "theirs\n" }]);
    expect((await sync(p.user, p.base)).body.hasUpdates).toBe(true);
    await drainJobs({ timeoutMs: 60_000 });
    const merged = p.tip()!;
    const parents = execFileSync(
      "git",
      ["--git-dir", openProjectRepo(p.project.id).gitdir, "rev-list", "--parents", "-n", "1", merged],
      { encoding: "utf8" },
    )
      .trim()
      .split(" ")
      .slice(1);
    expect(parents).toEqual([local, upstream]);
    const files = await call("GET", `${p.base}/files`, { token: p.user.token });
    expect(files.body.files).toEqual(expect.arrayContaining(["local.txt", "upstream.txt", "a.txt"]));
  });

  it("fails SYNC_DIVERGED and moves nothing when local and upstream conflict", async () => {
    const p = await imported();
    const { change } = await changeWith(p.user.token, { id: p.project.id, path: p.path } as never, {
      "a.txt": "local version\n",
    });
    expect((await merge(p.user.token, change.id)).status).toBe(200);
    const local = p.tip();
    stub.current.addCommits("octo", p.repo, [{ "a.txt": "upstream version\n" }]);
    await sync(p.user, p.base);
    await drainJobs({ timeoutMs: 60_000 });
    expect(p.tip()).toBe(local);
    const status = await call("GET", `${p.base}/sync/status`, { token: p.user.token });
    expect(status.body).toMatchObject({ status: "failed", error: { code: "SYNC_DIVERGED" }, hasUpdates: true });
  });

  it("deepens a shallow history before giving up on an upstream that shares no commit", async () => {
    const p = await imported([{ "a.txt": "1\n" }, { "a.txt": "2\n" }, { "a.txt": "3\n" }], 1);
    const { change } = await changeWith(p.user.token, { id: p.project.id, path: p.path } as never, {
      "local.txt": "x\n",
    });
    expect((await merge(p.user.token, change.id)).status).toBe(200);
    const local = p.tip();
    // The upstream history is rewritten (force-pushed): nothing in common with ours.
    const bare = stub.current.repoPath("octo", p.repo);
    const rewritten = execFileSync(
      "git",
      [
        "--git-dir",
        bare,
        "commit-tree",
        "-m",
        "rewritten",
        execFileSync("git", ["--git-dir", bare, "write-tree"], {
          encoding: "utf8",
          env: { ...process.env, GIT_INDEX_FILE: "/tmp/svc-empty-index" },
        }).trim(),
      ],
      {
        encoding: "utf8",
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "u",
          GIT_AUTHOR_EMAIL: "u@x",
          GIT_COMMITTER_NAME: "u",
          GIT_COMMITTER_EMAIL: "u@x",
        },
      },
    ).trim();
    execFileSync("git", ["--git-dir", bare, "update-ref", "refs/heads/main", rewritten]);
    await sync(p.user, p.base);
    await drainJobs({ timeoutMs: 60_000 });
    expect(p.tip()).toBe(local);
    const status = await call("GET", `${p.base}/sync/status`, { token: p.user.token });
    expect(status.body.error).toMatchObject({ code: "SYNC_DIVERGED" });
    const shallow = execFileSync(
      "git",
      ["--git-dir", openProjectRepo(p.project.id).gitdir, "rev-parse", "--is-shallow-repository"],
      { encoding: "utf8" },
    ).trim();
    expect(shallow).toBe("false");
  });

  it("loses no update when a sync and a merge race on the default branch", async () => {
    const p = await imported();
    const { change } = await changeWith(p.user.token, { id: p.project.id, path: p.path } as never, {
      "raced.txt": "local\n",
    });
    const [upstream] = stub.current.addCommits("octo", p.repo, [{ "up.txt": "up\n" }]);
    expect((await sync(p.user, p.base)).body.hasUpdates).toBe(true);
    const [merged] = await Promise.all([merge(p.user.token, change.id), drainJobs()]);
    const repo = openProjectRepo(p.project.id);
    const tip = p.tip()!;
    const contains = (commit: string) =>
      execFileSync("git", ["--git-dir", repo.gitdir, "merge-base", "--is-ancestor", commit, tip]) !== undefined;
    expect(contains(upstream)).toBe(true);
    if (merged.status === 200) expect(contains(merged.body.commit)).toBe(true);
    else expect(merged.body.code).toBe("STALE_BASE");
    const history = await call("GET", `${p.base}/sync/history`, { token: p.user.token });
    expect(history.body.history[0].status).toBe("succeeded");
  });

  it("refuses a project without a source (400), other users (403/404) and anonymous callers (401)", async () => {
    const p = await imported();
    const plain = await call("POST", "/api/projects", { token: p.user.token, body: { name: uniqueName("plain") } });
    expect((await sync(p.user, `/api/projects/@${p.user.username}/${plain.body.slug}`)).status).toBe(400);
    const other = await createTestUser();
    expect((await sync(other, p.base)).status).toBe(403);
    expect((await call("GET", `${p.base}/sync/history`, { token: other.token })).status).toBe(404);
    expect((await call("POST", `${p.base}/sync`)).status).toBe(401);
    expect((await call("GET", `${p.base}/sync/history`)).status).toBe(401);
  });
});

describe("sync settings, auto-sync and the inbound webhook", { timeout: 120_000 }, () => {
  it("validates and stores the settings", async () => {
    const p = await imported();
    const settings = (body: unknown) => call("POST", `${p.base}/sync/settings`, { token: p.user.token, body });
    for (const body of [
      { syncFrequency: 9 },
      { syncFrequency: 10081 },
      { syncFrequency: 1.5 },
      { autoSyncEnabled: "maybe" },
    ])
      expect((await settings(body)).status).toBe(400);
    expect((await settings({ autoSyncEnabled: true, syncFrequency: 10 })).body).toEqual({
      success: true,
      autoSyncEnabled: true,
      syncFrequency: 10,
    });
    expect((await settings({})).body).toEqual({ success: true, autoSyncEnabled: true, syncFrequency: 10 });
    const other = await createTestUser();
    expect(
      (await call("POST", `${p.base}/sync/settings`, { token: other.token, body: { autoSyncEnabled: false } })).status,
    ).toBe(404);
  });

  it("the auto-sync cron syncs projects whose frequency elapsed", async () => {
    const p = await imported();
    await call("POST", `${p.base}/sync/settings`, {
      token: p.user.token,
      body: { autoSyncEnabled: true, syncFrequency: 10 },
    });
    const [upstream] = stub.current.addCommits("octo", p.repo, [{ "auto.txt": "x\n" }]);
    expect(await queueDueSyncs()).toBeGreaterThanOrEqual(1);
    await drainJobs({ timeoutMs: 60_000 });
    expect(p.tip()).toBe(upstream);
    expect(await queueDueSyncs()).toBe(0);
    const history = await call("GET", `${p.base}/sync/history`, { token: p.user.token });
    expect(history.body.history[0]).toMatchObject({ trigger: "auto", status: "succeeded" });
    expect(await queueDueSyncs(new Date(Date.now() + 11 * 60_000))).toBeGreaterThanOrEqual(1);
    await drainJobs({ timeoutMs: 60_000 });
  });

  it("POST /api/providers/github/webhook: 404 without a secret, 401 on a bad signature, ping 200, a push queues a webhook sync", async () => {
    const p = await imported();
    await call("POST", `${p.base}/sync/settings`, { token: p.user.token, body: { autoSyncEnabled: true } });
    const hook = (body: unknown, event: string, signature?: string) => {
      const raw = JSON.stringify(body);
      const sig = signature ?? `sha256=${createHmac("sha256", "hook-secret").update(raw).digest("hex")}`;
      return call("POST", "/api/providers/github/webhook", {
        body: raw,
        headers: { "x-github-event": event, "x-hub-signature-256": sig },
      });
    };
    expect((await hook({ zen: "hi" }, "ping")).status).toBe(404);
    await withEnv({ GITHUB_WEBHOOK_SECRET: "hook-secret" }, async () => {
      expect((await hook({ zen: "hi" }, "ping", `sha256=${"0".repeat(64)}`)).status).toBe(401);
      expect((await hook({ zen: "hi" }, "ping", "garbage")).status).toBe(401);
      expect((await hook({ zen: "hi" }, "ping")).status).toBe(200);
      expect((await hook({ action: "opened" }, "issues")).status).toBe(202);
      const [upstream] = stub.current.addCommits("octo", p.repo, [{ "hooked.txt": "x\n" }]);
      const push = await hook(
        { ref: "refs/heads/main", repository: { name: p.repo, owner: { login: "octo" } } },
        "push",
      );
      expect(push.body).toEqual({ queued: 1 });
      expect(
        (await hook({ ref: "refs/heads/other", repository: { name: p.repo, owner: { login: "octo" } } }, "push")).body,
      ).toEqual({ queued: 0 });
      await drainJobs({ timeoutMs: 60_000 });
      expect(p.tip()).toBe(upstream);
    });
    const history = await call("GET", `${p.base}/sync/history`, { token: p.user.token });
    expect(history.body.history[0]).toMatchObject({ trigger: "webhook", status: "succeeded" });
  });
});
