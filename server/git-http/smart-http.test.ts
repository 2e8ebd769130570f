import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { createTestUser } from "@/tests/support/users";
import { branchRef, initProjectRepo, readRef, runGit } from "@/server/git";
import { commitUnhooked } from "@/server/git/commit";
import { db } from "@/server/db/client";
import { PktLineReader, pktLine } from "./pkt-line";
import { parseCommand } from "./proc-receive";
import { applyPush } from "./push";
import { findSubmodule, type PushScope } from "./rules";
import { parseGitPath } from "./target";

useTestEnvironment();

const author = { name: "Alice", email: "alice@example.test" };

describe("pkt-line", () => {
  it("reads packets split anywhere across chunks, with flushes", async () => {
    const bytes = Buffer.concat([
      pktLine("version=1\0atomic\n"),
      Buffer.from("0000"),
      pktLine("a b c"),
      Buffer.from("0000"),
    ]);
    const chunks = Array.from(bytes).map((byte) => Buffer.from([byte]));
    const reader = new PktLineReader(Readable.from(chunks));
    expect(await reader.section()).toEqual(["version=1\0atomic"]);
    expect(await reader.section()).toEqual(["a b c"]);
    expect(await reader.next()).toBeNull();
  });

  it("refuses malformed framing and a stream cut inside a packet", async () => {
    await expect(new PktLineReader(Readable.from([Buffer.from("zz12")])).next()).rejects.toThrow(/header/);
    await expect(new PktLineReader(Readable.from([Buffer.from("0009abc")])).next()).rejects.toThrow(/inside a packet/);
    expect(() => pktLine("x".repeat(70000))).toThrow(/too long/);
  });
});

describe("parseGitPath", () => {
  it("parses project and workspace URLs, with or without .git and the internal prefix", () => {
    expect(parseGitPath("/@alice/demo.git/info/refs")).toEqual({
      namespace: "alice",
      slug: "demo",
      endpoint: "info/refs",
    });
    expect(parseGitPath("/@alice/demo/git-upload-pack")).toEqual({
      namespace: "alice",
      slug: "demo",
      endpoint: "git-upload-pack",
    });
    expect(parseGitPath("/git-http/%40alice/demo.git/git-receive-pack")).toEqual({
      namespace: "alice",
      slug: "demo",
      endpoint: "git-receive-pack",
    });
    expect(parseGitPath("/@alice/demo/workspaces/ws-1.git/info/refs")).toEqual({
      namespace: "alice",
      slug: "demo",
      workspace: "ws-1",
      endpoint: "info/refs",
    });
  });

  it("rejects everything else", () => {
    for (const path of [
      "/api/projects",
      "/alice/demo.git/info/refs",
      "/@alice/info/refs",
      "/@alice/demo.git/HEAD",
      "/@alice/a/b/c.git/info/refs",
      "/@alice/../x.git/info/refs",
      "/@alice/%zz.git/info/refs",
    ]) {
      expect(parseGitPath(path), path).toBeNull();
    }
  });
});

describe("parseCommand", () => {
  it("maps git's zero id to null for creations and deletions", () => {
    const zero = "0".repeat(40);
    const a = "a".repeat(40);
    expect(parseCommand(`${zero} ${a} refs/heads/x`)).toEqual({ ref: "refs/heads/x", oldOid: null, newOid: a });
    expect(parseCommand(`${a} ${zero} refs/tags/v1`)).toEqual({ ref: "refs/tags/v1", oldOid: a, newOid: null });
    expect(() => parseCommand("nonsense")).toThrow();
  });
});

async function newScope(files: Record<string, string> = { "a.txt": "a\n" }): Promise<PushScope & { tip: string }> {
  const alice = await createTestUser();
  const project = await (
    await db()
  ).project.create({
    data: { namespace: alice.username, slug: `p${randomUUID().slice(0, 8)}`, ownerUserId: alice.id },
  });
  const repo = initProjectRepo(project.id, "main");
  const { oid } = await commitUnhooked(repo, "main", { files, message: "initial", author, expectedTip: null });
  return { project, repo, defaultBranch: "main", tip: oid };
}

describe("applyPush", () => {
  const identity = {
    kind: "agent" as const,
    agentId: randomUUID(),
    agentName: "probe",
    ownerId: randomUUID(),
    ownerUsername: "owner",
  };

  it("refuses a command whose old value is stale and keeps the other write", async () => {
    const scope = await newScope();
    const { oid: moved } = await commitUnhooked(scope.repo, "main", {
      files: { "b.txt": "b\n" },
      message: "api write",
      author,
    });
    const { oid: pushed } = await commitUnhooked(scope.repo, "side", {
      files: { "c.txt": "c\n" },
      message: "pushed",
      author,
      expectedTip: null,
    });
    const results = await applyPush(identity, scope, [{ ref: "refs/heads/main", oldOid: scope.tip, newOid: pushed }]);
    expect(results).toEqual([{ ref: "refs/heads/main", ok: false, reason: expect.stringMatching(/^stale info/) }]);
    expect(readRef(scope.repo, branchRef("main"))).toBe(moved);
  });

  it("of two pushes racing from the same old value exactly one lands", async () => {
    const scope = await newScope();
    const one = (
      await commitUnhooked(scope.repo, "one", { files: { "1.txt": "1" }, message: "one", author, expectedTip: null })
    ).oid;
    const two = (
      await commitUnhooked(scope.repo, "two", { files: { "2.txt": "2" }, message: "two", author, expectedTip: null })
    ).oid;
    const results = await Promise.all(
      [one, two].map((newOid) => applyPush(identity, scope, [{ ref: "refs/heads/main", oldOid: scope.tip, newOid }])),
    );
    expect(results.map(([result]) => result.ok).sort()).toEqual([false, true]);
    const winner = results[0][0].ok ? one : two;
    expect(readRef(scope.repo, branchRef("main"))).toBe(winner);
    const events = await (await db()).domainEvent.findMany({ where: { projectId: scope.project.id, kind: "push" } });
    expect(events.map((event) => event.data)).toEqual([{ ref: "refs/heads/main", before: scope.tip, after: winner }]);
    expect(events[0].actor).toBe(`agent:${identity.agentId}`);
  });

  it("decides each ref on its own: creations, deletions, refusals side by side", async () => {
    const scope = await newScope();
    await commitUnhooked(scope.repo, "old", { files: { "o.txt": "o" }, message: "old", author, expectedTip: null });
    const oldTip = readRef(scope.repo, branchRef("old"))!;
    const results = await applyPush(identity, scope, [
      { ref: "refs/heads/new", oldOid: null, newOid: scope.tip },
      { ref: "refs/heads/old", oldOid: oldTip, newOid: null },
      { ref: "refs/heads/main", oldOid: scope.tip, newOid: null },
      { ref: "refs/notes/x", oldOid: null, newOid: scope.tip },
      { ref: "refs/heads/bad..name", oldOid: null, newOid: scope.tip },
      { ref: "refs/heads/ghost", oldOid: null, newOid: null },
    ]);
    expect(results.map((result) => (result.ok ? "ok" : result.reason))).toEqual([
      "ok",
      "ok",
      "the default branch cannot be deleted",
      "only branches (refs/heads/*) and tags (refs/tags/*) can be pushed",
      "invalid ref name",
      "nothing to delete",
    ]);
    expect(readRef(scope.repo, branchRef("new"))).toBe(scope.tip);
    expect(readRef(scope.repo, branchRef("old"))).toBeNull();
  });
});

describe("findSubmodule", () => {
  it("finds a gitlink anywhere or a .gitmodules at the root of a commit's tree", async () => {
    const scope = await newScope({ "a.txt": "a\n", "nested/.gitmodules": "not at the root\n" });
    expect(await findSubmodule(scope.repo, scope.tip)).toBeNull();
    const git = (args: string[], input?: string) =>
      runGit(args, {
        gitdir: scope.repo.gitdir,
        input,
        env: { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@x" },
      });
    const inner = (await git(["mktree"], `160000 commit ${scope.tip}\tlib\n`)).stdout.trim();
    const outer = (await git(["mktree"], `040000 tree ${inner}\tdeps\n`)).stdout.trim();
    const withLink = (await git(["commit-tree", outer, "-m", "gitlink"])).stdout.trim();
    expect(await findSubmodule(scope.repo, withLink)).toBe("deps/lib");
    const { oid: modules } = await commitUnhooked(scope.repo, "main", {
      files: { ".gitmodules": "[submodule]\n" },
      message: "m",
      author,
    });
    expect(await findSubmodule(scope.repo, modules)).toBe(".gitmodules");
  });
});
