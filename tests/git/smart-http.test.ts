import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestSession, createTestToken } from "@/tests/support/sessions";
import { createTestProject, grantCollaborator } from "@/server/projects/test-fixtures";
import { openProjectRepo, pinRef, readRef } from "@/server/git";
import { GitClient, startTestServer, withToken, type TestServer } from "./support";

useTestEnvironment();

let server: TestServer;
let git: GitClient;
let alice: { id: string; username: string; token: string };
let bob: { id: string; username: string; token: string };
let dirCounter = 0;

beforeAll(async () => {
  server = await startTestServer();
  git = new GitClient();
  alice = await createTestUser();
  bob = await createTestUser();
});

afterAll(async () => {
  await server?.close();
  git?.cleanup();
});

const newDir = () => git.dir(`w${++dirCounter}`);

/** Raw smart-HTTP requests against the running server (to check statuses and headers). */
function fetchGit(
  urlPath: string,
  options: {
    token?: string;
    basic?: string;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.basic) headers.authorization = `Basic ${Buffer.from(options.basic).toString("base64")}`;
  return fetch(`${server.baseUrl}${urlPath}`, {
    method: options.method ?? "GET",
    headers,
    body: options.body,
    signal: options.signal,
  });
}

async function cloneOf(remote: string, token: string): Promise<string> {
  const dir = newDir();
  await git.ok(["clone", "-q", withToken(remote, token), dir]);
  return dir;
}

const activity = async (projectPath: string, token: string) =>
  (await call("GET", `/api/projects/${projectPath}/activity?limit=200`, { token })).body.events as Array<{
    kind: string;
    actor: string;
    data: Record<string, unknown>;
  }>;

describe("clone, push, tag and fetch with the real git client", () => {
  it("clones a private project with the token as password, pushes, tags and fetches; pushes are activity", async () => {
    const project = await createTestProject(alice.token, {
      name: "roundtrip",
      files: { "README.md": "# hi\n", "src/a.txt": "a\n" },
    });
    expect(project.remote).toBe(`${server.baseUrl}/@${alice.username}/roundtrip.git`);
    const work = await cloneOf(project.remote, alice.token);
    expect(fs.readFileSync(path.join(work, "src/a.txt"), "utf8")).toBe("a\n");
    expect(await git.ok(["rev-parse", "HEAD"], { cwd: work })).toBe(project.commit);
    expect(await git.ok(["symbolic-ref", "--short", "HEAD"], { cwd: work })).toBe("main");

    const second = await git.commit(work, { "src/b.txt": "b\n" }, "add b");
    await git.ok(["push", "-q", "origin", "main"], { cwd: work });
    await git.ok(["tag", "v1"], { cwd: work });
    await git.ok(["tag", "-a", "v1-annotated", "-m", "release"], { cwd: work });
    await git.ok(["push", "-q", "origin", "v1", "v1-annotated"], { cwd: work });
    await git.ok(["push", "-q", "origin", "main:refs/heads/feature"], { cwd: work });

    const log = await call("GET", `/api/projects/${project.path}/log`, { token: alice.token });
    expect(log.body.log[0].sha).toBe(second);
    const remoteRefs = await git.ok(["ls-remote", withToken(project.remote, alice.token)]);
    expect(remoteRefs).toContain(`${second}\trefs/heads/main`);
    expect(remoteRefs).toContain(`${second}\trefs/heads/feature`);
    expect(remoteRefs).toContain(`${second}\trefs/tags/v1`);
    expect(remoteRefs).toMatch(/refs\/tags\/v1-annotated\^\{\}/);

    // Another clone catches up by fetch, over protocol v2 and v0 alike.
    const other = await cloneOf(project.remote, alice.token);
    const third = await git.commit(work, { "src/c.txt": "c\n" }, "add c");
    await git.ok(["push", "-q", "origin", "main"], { cwd: work });
    await git.ok(["-c", "protocol.version=2", "fetch", "-q", "origin"], { cwd: other });
    expect(await git.ok(["rev-parse", "origin/main"], { cwd: other })).toBe(third);
    const fourth = await git.commit(work, { "src/d.txt": "d\n" }, "add d");
    await git.ok(["push", "-q", "origin", "main"], { cwd: work });
    await git.ok(["-c", "protocol.version=0", "fetch", "-q", "--tags", "origin"], { cwd: other });
    expect(await git.ok(["rev-parse", "origin/main"], { cwd: other })).toBe(fourth);
    expect(await git.ok(["rev-parse", "v1"], { cwd: other })).toBe(second);

    const pushes = (await activity(project.path, alice.token)).filter((event) => event.kind === "push");
    expect(pushes.length).toBe(6);
    expect(pushes.every((event) => event.actor === `user:${alice.id}`)).toBe(true);
    expect(pushes.map((event) => event.data)).toContainEqual({
      ref: "refs/heads/main",
      before: project.commit,
      after: second,
    });
    expect(pushes.map((event) => event.data)).toContainEqual({ ref: "refs/tags/v1", before: null, after: second });
  });

  it("serves protocol v2 when the client asks and v0 with the service line otherwise", async () => {
    const project = await createTestProject(alice.token, { name: "protocols" });
    const base = `/${project.path}.git/info/refs?service=git-upload-pack`;
    const v2 = await fetchGit(base, { token: alice.token, headers: { "git-protocol": "version=2" } });
    expect(v2.status).toBe(200);
    expect(v2.headers.get("content-type")).toBe("application/x-git-upload-pack-advertisement");
    expect(v2.headers.get("cache-control")).toContain("no-cache");
    const v2Body = await v2.text();
    expect(v2Body.startsWith("000eversion 2\n")).toBe(true);
    expect(v2Body).toContain("ls-refs");
    const v0 = await (await fetchGit(base, { token: alice.token })).text();
    expect(v0.startsWith("001e# service=git-upload-pack\n0000")).toBe(true);
    expect(v0).toContain(`${project.commit} HEAD`);
    // Extra path forms: without .git, and through the internal rewrite prefix.
    expect((await fetchGit(`/${project.path}/info/refs?service=git-upload-pack`, { token: alice.token })).status).toBe(
      200,
    );
    expect(
      (await fetchGit(`/git-http/${project.path}.git/info/refs?service=git-upload-pack`, { token: alice.token }))
        .status,
    ).toBe(200);
  });

  it("handles gzip-compressed negotiation bodies", async () => {
    const project = await createTestProject(alice.token, { name: "gzipped", files: { "a.txt": "a\n" } });
    const { gzipSync } = await import("node:zlib");
    const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, "0") + line;
    const request = `${pkt(`want ${project.commit} ofs-delta\n`)}0000${pkt("done\n")}`;
    const res = await fetchGit(`/${project.path}.git/git-upload-pack`, {
      token: alice.token,
      method: "POST",
      body: gzipSync(request) as unknown as string,
      headers: { "content-type": "application/x-git-upload-pack-request", "content-encoding": "gzip" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-git-upload-pack-result");
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.subarray(0, 8).toString()).toBe("0008NAK\n");
    expect(body.includes(Buffer.from("PACK"))).toBe(true);
  });

  it("stops serving a pack when the client goes away, and keeps serving others", async () => {
    const project = await createTestProject(alice.token, { name: "abandoned" });
    const work = await cloneOf(project.remote, alice.token);
    const tip = await git.commit(work, { "big.txt": randomBytes(4 * 1024 * 1024).toString("base64") }, "big");
    await git.ok(["push", "-q", "origin", "main"], { cwd: work });
    const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, "0") + line;
    const controller = new AbortController();
    const res = await fetchGit(`/${project.path}.git/git-upload-pack`, {
      token: alice.token,
      method: "POST",
      body: `${pkt(`want ${tip} side-band-64k\n`)}0000${pkt("done\n")}`,
      headers: { "content-type": "application/x-git-upload-pack-request" },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    const again = await cloneOf(project.remote, alice.token);
    expect(await git.ok(["rev-parse", "HEAD"], { cwd: again })).toBe(tip);
  });
});

describe("authentication and access", () => {
  it("without credentials: 401 with a Basic challenge for anything it may not read; git gives up without a prompt", async () => {
    const project = await createTestProject(alice.token, { name: "private-one" });
    for (const service of ["git-upload-pack", "git-receive-pack"]) {
      const res = await fetchGit(`/${project.path}.git/info/refs?service=${service}`);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    }
    const missing = await fetchGit(`/@${alice.username}/no-such-project.git/info/refs?service=git-upload-pack`);
    expect(missing.status).toBe(401);
    const clone = await git.run(["clone", project.remote, newDir()]);
    expect(clone.code).not.toBe(0);
    expect(clone.stderr).toMatch(/could not read Username|Authentication failed/);
  });

  it("an invalid token is 401 with a Basic challenge", async () => {
    const project = await createTestProject(alice.token, { name: "badtoken" });
    const res = await fetchGit(`/${project.path}.git/info/refs?service=git-upload-pack`, {
      basic: `git:${alice.token}x`,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    const clone = await git.run(["clone", withToken(project.remote, "svc_user_nope"), newDir()]);
    expect(clone.code).not.toBe(0);
    expect(clone.stderr).toContain("Authentication failed");
  });

  it("an authenticated caller without access gets 404 (private project, unknown project, pushing as a reader)", async () => {
    const project = await createTestProject(alice.token, { name: "hidden" });
    const asBob = await fetchGit(`/${project.path}.git/info/refs?service=git-upload-pack`, {
      basic: `bob:${bob.token}`,
    });
    expect(asBob.status).toBe(404);
    expect(asBob.headers.get("content-type")).toContain("text/plain");
    expect(
      (await fetchGit(`/@${alice.username}/nothing-here.git/info/refs?service=git-upload-pack`, { token: bob.token }))
        .status,
    ).toBe(404);
    const clone = await git.run(["clone", withToken(project.remote, bob.token), newDir()]);
    expect(clone.code).not.toBe(0);
    expect(clone.stderr).toMatch(/not found/);

    const carol = await createTestUser();
    await grantCollaborator(project.id, carol.id, "read");
    const work = await cloneOf(project.remote, carol.token);
    await git.commit(work, { "x.txt": "x\n" }, "reader's commit");
    expect(
      (await fetchGit(`/${project.path}.git/info/refs?service=git-receive-pack`, { token: carol.token })).status,
    ).toBe(404);
    const push = await git.run(["push", "origin", "main"], { cwd: work });
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/not found/);
  });

  it("public projects clone anonymously; pushing asks for credentials", async () => {
    const project = await createTestProject(alice.token, {
      name: "open",
      visibility: "public",
      files: { "a.txt": "a\n" },
    });
    const dir = newDir();
    await git.ok(["clone", "-q", project.remote, dir]);
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("a\n");
    await git.commit(dir, { "b.txt": "b\n" }, "anonymous attempt");
    const res = await fetchGit(`/${project.path}.git/info/refs?service=git-receive-pack`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    const push = await git.run(["push", "origin", "main"], { cwd: dir });
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/could not read Username|Authentication failed/);
    // With credentials in the URL the same push goes through.
    await git.ok(["push", "-q", withToken(project.remote, alice.token), "main"], { cwd: dir });
  });

  it("a read token clones and fetches but cannot push (plain-text 404); a read_write token and Bearer auth push", async () => {
    const { cookie } = await createTestSession(alice.username);
    const readToken = await createTestToken(cookie, { name: "ci-read", scope: "read" });
    const writeToken = await createTestToken(cookie, { name: "ci-write", scope: "read_write" });
    const project = await createTestProject(alice.token, { name: "scoped", files: { "a.txt": "a\n" } });
    const work = await cloneOf(project.remote, readToken);
    await git.ok(["fetch", "-q", "origin"], { cwd: work });
    await git.commit(work, { "b.txt": "b\n" }, "with a read token");
    const advertisement = await fetchGit(`/${project.path}.git/info/refs?service=git-receive-pack`, {
      basic: `git:${readToken}`,
    });
    const receive = await fetchGit(`/${project.path}.git/git-receive-pack`, {
      basic: `git:${readToken}`,
      method: "POST",
      body: "0000",
      headers: { "content-type": "application/x-git-receive-pack-request" },
    });
    for (const res of [advertisement, receive]) {
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("text/plain");
    }
    const push = await git.run(["push", "origin", "main"], { cwd: work });
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/not found/);
    await git.ok(["push", "-q", withToken(project.remote, writeToken), "main"], { cwd: work });
    const bearer = await git.commit(work, { "c.txt": "c\n" }, "bearer");
    await git.ok(["-c", `http.extraHeader=Authorization: Bearer ${writeToken}`, "push", "-q", project.remote, "main"], {
      cwd: work,
    });
    expect((await call("GET", `/api/projects/${project.path}/log`, { token: alice.token })).body.log[0].sha).toBe(
      bearer,
    );
  });

  it("counts git requests against the per-identity rate limit (429 with Retry-After)", async () => {
    const project = await createTestProject(alice.token, { name: "limited" });
    const carol = await createTestUser();
    await grantCollaborator(project.id, carol.id, "read");
    process.env.RATE_LIMIT_PER_MINUTE = "2";
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 3; i++) {
        last = await fetchGit(`/${project.path}.git/info/refs?service=git-upload-pack`, {
          basic: `git:${carol.token}`,
        });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");
    } finally {
      delete process.env.RATE_LIMIT_PER_MINUTE;
    }
  });

  it("refuses wrong methods, content types and unknown encodings", async () => {
    const project = await createTestProject(alice.token, { name: "protocolerrors" });
    expect((await fetchGit(`/${project.path}.git/info/refs`, { token: alice.token })).status).toBe(403);
    expect((await fetchGit(`/${project.path}.git/git-upload-pack`, { token: alice.token })).status).toBe(405);
    const wrongType = await fetchGit(`/${project.path}.git/git-upload-pack`, {
      token: alice.token,
      method: "POST",
      body: "0000",
      headers: { "content-type": "text/plain" },
    });
    expect(wrongType.status).toBe(415);
    const brotli = await fetchGit(`/${project.path}.git/git-upload-pack`, {
      token: alice.token,
      method: "POST",
      body: "0000",
      headers: { "content-type": "application/x-git-upload-pack-request", "content-encoding": "br" },
    });
    expect(brotli.status).toBe(415);
  });
});

describe("push rules", () => {
  it("gates the default branch once the policy asks for approvals, with a per-ref rejection; other branches stay open", async () => {
    const project = await createTestProject(alice.token, { name: "gated" });
    const work = await cloneOf(project.remote, alice.token);
    const policy = await git.commit(work, { ".svc/policy.yml": "requiredApprovals: 1\n" }, "require a review");
    await git.ok(["push", "-q", "origin", "main"], { cwd: work });
    await git.commit(work, { "direct.txt": "x\n" }, "direct push");
    const push = await git.run(["push", "origin", "main", "main:refs/heads/side"], { cwd: work });
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(
      /! \[remote rejected\] main -> main \(main is gated: the project policy requires 1 approval; push to a workspace and open a change\)/,
    );
    expect(push.stderr).toMatch(/\* \[new branch\]\s+main -> side/);
    expect((await call("GET", `/api/projects/${project.path}/log`, { token: alice.token })).body.log[0].sha).toBe(
      policy,
    );
  });

  it("gates on protection (allowDirectPush: false, locked) and fails closed on an invalid policy", async () => {
    for (const [name, text] of [
      ["nodirect", "protection:\n  allowDirectPush: false\n"],
      ["locked", "protection:\n  locked: true\n"],
      ["broken", "requiredApprovals: [\n"],
    ]) {
      const project = await createTestProject(alice.token, { name, files: { ".svc/policy.yml": text } });
      const work = await cloneOf(project.remote, alice.token);
      await git.commit(work, { "x.txt": "x\n" }, "try");
      const push = await git.run(["push", "origin", "main"], { cwd: work });
      expect(push.code, name).not.toBe(0);
      expect(push.stderr, name).toMatch(/main is gated: /);
    }
  });

  it("refuses a gitlink or a root .gitmodules on the default branch (SUBMODULES_UNSUPPORTED), not elsewhere", async () => {
    const project = await createTestProject(alice.token, { name: "submodules", files: { "a.txt": "a\n" } });
    const work = await cloneOf(project.remote, alice.token);
    await git.ok(["update-index", "--add", "--cacheinfo", `160000,${project.commit},vendor/lib`], { cwd: work });
    await git.ok(["commit", "-q", "-m", "add a gitlink"], { cwd: work });
    const gitlink = await git.run(["push", "origin", "main"], { cwd: work });
    expect(gitlink.code).not.toBe(0);
    expect(gitlink.stderr).toMatch(
      /\(Git submodules are unsupported \(SUBMODULES_UNSUPPORTED\): gitlink at vendor\/lib\)/,
    );
    await git.ok(["push", "-q", "origin", "main:refs/heads/with-submodule"], { cwd: work });

    await git.ok(["reset", "-q", "--hard", "origin/main"], { cwd: work });
    await git.commit(work, { ".gitmodules": '[submodule "x"]\n\tpath = x\n\turl = ../x\n' }, "add .gitmodules");
    const modules = await git.run(["push", "origin", "main"], { cwd: work });
    expect(modules.code).not.toBe(0);
    expect(modules.stderr).toMatch(/SUBMODULES_UNSUPPORTED\): \.gitmodules at the root/);
  });

  it.each([["GIT~1"], [".g\u200cit"], [".git."], [".GIT"]])(
    "refuses a pushed tree holding %j/x (git fsck with NTFS and HFS protection)",
    async (name) => {
      const project = await createTestProject(alice.token, {
        name: `odd${[...name].map((c) => c.codePointAt(0)).join("")}`,
        files: { "a.txt": "a\n" },
      });
      const work = await cloneOf(project.remote, alice.token);
      const blob = (await git.ok(["hash-object", "-w", "--stdin"], { cwd: work, input: "x\n" })).trim();
      const inner = (await git.ok(["mktree"], { cwd: work, input: `100644 blob ${blob}\tx\n` })).trim();
      const root = (
        await git.ok(["mktree"], { cwd: work, input: `040000 tree ${inner}\t${name}\n100644 blob ${blob}\ta.txt\n` })
      ).trim();
      const commit = (await git.ok(["commit-tree", root, "-p", "HEAD", "-m", "odd name"], { cwd: work })).trim();
      const push = await git.run(["push", "origin", `${commit}:refs/heads/topic`], { cwd: work });
      expect(push.code).not.toBe(0);
      expect(push.stderr).toMatch(/dotgit|hasDotgit|fsck/i);
      expect(await git.ok(["ls-remote", withToken(project.remote, alice.token)])).not.toContain("refs/heads/topic");
    },
  );

  it("never deletes the default branch; deletes other branches; refuses refs outside heads and tags", async () => {
    const project = await createTestProject(alice.token, { name: "deletions" });
    const work = await cloneOf(project.remote, alice.token);
    await git.ok(["push", "-q", "origin", "main:refs/heads/temp"], { cwd: work });
    const deleteMain = await git.run(["push", "origin", ":main"], { cwd: work });
    expect(deleteMain.code).not.toBe(0);
    expect(deleteMain.stderr).toContain("(the default branch cannot be deleted)");
    await git.ok(["push", "-q", "origin", ":temp"], { cwd: work });
    const odd = await git.run(["push", "origin", "main:refs/svc/internal"], { cwd: work });
    expect(odd.stderr).toContain("(only branches (refs/heads/*) and tags (refs/tags/*) can be pushed)");
    // The service's own pins exist but are not advertised, in protocol v0 or v2.
    const repo = openProjectRepo(project.id);
    await pinRef(repo, "refs/svc/changes/pinned", readRef(repo, "refs/heads/main")!);
    for (const protocol of ["0", "2"]) {
      const refs = await git.ok([
        "-c",
        `protocol.version=${protocol}`,
        "ls-remote",
        withToken(project.remote, alice.token),
      ]);
      expect(refs).toContain("refs/heads/main");
      expect(refs).not.toContain("refs/heads/temp");
      expect(refs).not.toContain("refs/svc/");
    }
  });

  it("refuses a push whose old value is stale, and accepts a force push to an ungated branch", async () => {
    const project = await createTestProject(alice.token, { name: "stale" });
    const first = await cloneOf(project.remote, alice.token);
    const second = await cloneOf(project.remote, alice.token);
    const landed = await git.commit(first, { "one.txt": "1\n" }, "first");
    await git.ok(["push", "-q", "origin", "main"], { cwd: first });
    await git.commit(second, { "two.txt": "2\n" }, "second");
    // The client sends the old value it last saw: a lease that no longer holds is refused by the server.
    const leased = await git.run(["push", `--force-with-lease=main:${project.commit}`, "origin", "main"], {
      cwd: second,
    });
    expect(leased.code).not.toBe(0);
    expect((await call("GET", `/api/projects/${project.path}/log`, { token: alice.token })).body.log[0].sha).toBe(
      landed,
    );
    // The refused update left no trace: the only push event is the one that landed.
    const pushes = (await activity(project.path, alice.token)).filter((event) => event.kind === "push");
    expect(pushes.map((event) => event.data.after)).toEqual([landed]);
    const forced = await git.commit(second, { "three.txt": "3\n" }, "third");
    await git.ok(["push", "-q", "--force", "origin", "main"], { cwd: second });
    expect((await call("GET", `/api/projects/${project.path}/log`, { token: alice.token })).body.log[0].sha).toBe(
      forced,
    );
  });
});

describe("workspaces", () => {
  it("serves a workspace fork at its remote: its writers push (not gated), others get 404", async () => {
    const project = await createTestProject(alice.token, {
      name: "forked",
      files: { ".svc/policy.yml": "requiredApprovals: 2\n" },
    });
    await grantCollaborator(project.id, bob.id, "write");
    const created = await call("POST", `/api/workspaces/${project.path}/workspaces`, {
      token: alice.token,
      body: { name: "feature1" },
    });
    expect(created.status).toBe(201);
    expect(created.body.remote).toBe(`${server.baseUrl}/${project.path}/workspaces/feature1.git`);
    const work = await cloneOf(created.body.remote, alice.token);
    const tip = await git.commit(work, { "feature.txt": "f\n" }, "workspace work");
    await git.ok(["push", "-q", "origin", "main"], { cwd: work });
    const committed = await call("POST", "/api/workspaces/feature1/commit", {
      token: alice.token,
      body: { projectId: project.id, message: "api commit", files: { "api.txt": "api\n" } },
    });
    expect(committed.status).toBe(201);
    expect(committed.body.parent).toBe(tip);

    // Bob writes to the project but did not create the workspace: he can read it, not push to it.
    const bobs = await cloneOf(created.body.remote, bob.token);
    expect(await git.ok(["rev-parse", "HEAD"], { cwd: bobs })).toBe(committed.body.commit);
    await git.commit(bobs, { "bob.txt": "b\n" }, "bob");
    const push = await git.run(["push", "origin", "main"], { cwd: bobs });
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/not found/);
    expect(
      (await fetchGit(`/${project.path}/workspaces/nope.git/info/refs?service=git-upload-pack`, { token: alice.token }))
        .status,
    ).toBe(404);

    const events = await activity(project.path, alice.token);
    // Newest first: the commit route records the same `push` signal as the git push before it.
    expect(events.filter((event) => event.kind === "push").map((event) => event.data)).toEqual([
      { ref: "refs/heads/main", before: tip, after: committed.body.commit, workspace: "feature1" },
      { ref: "refs/heads/main", before: project.commit, after: tip, workspace: "feature1" },
    ]);
  });
});
