import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { processAlive } from "@/tests/support/processes";
import {
  RefConflictError,
  branchRef,
  copyObjects,
  createWorkspaceFork,
  holdsOwnObjects,
  initImportStaging,
  initProjectRepo,
  listFiles,
  listRefs,
  log,
  openProjectRepo,
  openRepo,
  openWorkspaceRepo,
  pinUnknownRef,
  readBlob,
  readCommit,
  readFile,
  readRef,
  removeImportStaging,
  repoExists,
  resolveBranch,
  runGit,
  spawnGit,
  streamGit,
  writeBlob,
  writeCommitFromFiles,
  writeCommitObject,
  writeTree,
  withRepoLock,
  type Repo,
} from "@/server/git";
import { commitUnhooked } from "./commit";
import { deleteRef, updateRef } from "./refs";
import { CONTENT_VIEW_BYTES_MAX } from "@/server/limits";
import git from "isomorphic-git";
import nodeFs from "node:fs";

useTestEnvironment();

const author = { name: "Alice", email: "alice@example.test" };

async function newProject(
  files: Record<string, string> = { "README.md": "hello\n" },
): Promise<{ id: string; repo: Repo; tip: string }> {
  const id = randomUUID();
  const repo = initProjectRepo(id, "main");
  const { oid } = await commitUnhooked(repo, "main", { files, message: "initial", author, expectedTip: null });
  return { id, repo, tip: oid };
}

describe("writeCommitFromFiles", () => {
  it("builds nested trees, keeps untouched paths and deletes with null", async () => {
    const { repo, tip } = await newProject({
      "README.md": "hi\n",
      "src/a.ts": "a",
      "src/lib/b.ts": "b",
      "docs/x.md": "x",
    });
    expect(await listFiles(repo, tip)).toEqual(["README.md", "docs/x.md", "src/a.ts", "src/lib/b.ts"]);
    const { oid } = await writeCommitFromFiles(repo, {
      parent: tip,
      files: { "src/lib/c.ts": "c", "src/a.ts": null, "docs/x.md": null, "deep/er/still/file.txt": "deep" },
      message: "second",
      author,
    });
    expect(await listFiles(repo, oid)).toEqual(["README.md", "deep/er/still/file.txt", "src/lib/b.ts", "src/lib/c.ts"]);
    expect(await readFile(repo, oid, "deep/er/still/file.txt")).toEqual({ kind: "content", value: "deep" });
    expect(await readFile(repo, oid, "docs/x.md")).toBeNull();
    // native git agrees with the objects written in-process
    await runGit(["fsck", "--strict", "--no-dangling"], { gitdir: repo.gitdir });
    const lsTree = await runGit(["ls-tree", "-r", "--name-only", oid], { gitdir: repo.gitdir });
    expect(lsTree.stdout.trim().split("\n")).toEqual([
      "README.md",
      "deep/er/still/file.txt",
      "src/lib/b.ts",
      "src/lib/c.ts",
    ]);
  });

  it("deleting a directory path removes the whole subtree; a file may replace a directory", async () => {
    const { repo, tip } = await newProject({ "a/b/c.txt": "c", "a/d.txt": "d", "keep.txt": "k" });
    const removed = await writeCommitFromFiles(repo, { parent: tip, files: { a: null }, message: "rm", author });
    expect(await listFiles(repo, removed.oid)).toEqual(["keep.txt"]);
    const replaced = await writeCommitFromFiles(repo, {
      parent: tip,
      files: { "a/b": "now a file" },
      message: "replace",
      author,
    });
    expect(await listFiles(repo, replaced.oid)).toEqual(["a/b", "a/d.txt", "keep.txt"]);
  });

  it("refuses unsafe and contradictory paths with INVALID_PATH", async () => {
    const { repo, tip } = await newProject();
    for (const bad of ["/abs", "a//b", "../x", "a/./b", ".git/config", "x/", ""]) {
      await expect(
        writeCommitFromFiles(repo, { parent: tip, files: { [bad]: "x" }, message: "m", author }),
      ).rejects.toMatchObject({ code: "INVALID_PATH" });
    }
    await expect(
      writeCommitFromFiles(repo, { parent: tip, files: { a: "file", "a/b": "nested" }, message: "m", author }),
    ).rejects.toMatchObject({
      code: "INVALID_PATH",
    });
  });

  it("classifies content, binary and too-large blobs", async () => {
    const { repo, tip } = await newProject({
      "text.txt": "héllo",
      "bin.dat": "\u0000\u0001binary",
      "big.txt": "x".repeat(CONTENT_VIEW_BYTES_MAX + 1),
    });
    expect(await readFile(repo, tip, "text.txt")).toEqual({ kind: "content", value: "héllo" });
    expect(await readFile(repo, tip, "bin.dat")).toEqual({ kind: "binary" });
    expect(await readFile(repo, tip, "big.txt")).toEqual({ kind: "too_large" });
    const latin1 = await writeCommitFromFiles(repo, {
      parent: tip,
      files: { "latin1.txt": Uint8Array.from([0xe9, 0x41]) },
      message: "m",
      author,
    });
    expect(await readFile(repo, latin1.oid, "latin1.txt")).toEqual({ kind: "binary" });
  });
});

describe("an object git's gc packs while it is read", () => {
  it("is read from the pack when its loose file goes between the check and the read (prune-packed beside the server)", async () => {
    const { repo, tip } = await newProject({ "a.txt": "packed meanwhile\n" });
    const { stdout } = await runGit(["rev-parse", `${tip}:a.txt`], { gitdir: repo.gitdir });
    const blob = stdout.trim();
    await runGit(["repack", "-a", "-q"], { gitdir: repo.gitdir });
    const loose = path.join(repo.gitdir, "objects", blob.slice(0, 2), blob.slice(2));
    expect(fs.existsSync(loose)).toBe(true);
    const readFileSync = fs.readFileSync;
    const pruned = vi.spyOn(fs, "readFileSync").mockImplementation(((file: string, options?: never) => {
      if (file === loose) fs.rmSync(loose);
      return readFileSync(file, options);
    }) as typeof fs.readFileSync);
    try {
      expect(Buffer.from(await readBlob(repo, blob)).toString()).toBe("packed meanwhile\n");
      expect(pruned).toHaveBeenCalledWith(loose);
    } finally {
      pruned.mockRestore();
    }
  });
});

describe("refs", () => {
  it("updateRef is a compare-and-swap", async () => {
    const { repo, tip } = await newProject();
    const next = await writeCommitFromFiles(repo, { parent: tip, files: { "x.txt": "x" }, message: "x", author });
    await expect(updateRef(repo, branchRef("main"), next.oid, next.oid)).rejects.toBeInstanceOf(RefConflictError);
    await expect(updateRef(repo, branchRef("main"), next.oid, null)).rejects.toBeInstanceOf(RefConflictError);
    expect(readRef(repo, branchRef("main"))).toBe(tip);
    await updateRef(repo, branchRef("main"), next.oid, tip);
    expect(readRef(repo, branchRef("main"))).toBe(next.oid);
    // a stale expectation after the move fails
    await expect(updateRef(repo, branchRef("main"), tip, tip)).rejects.toBeInstanceOf(RefConflictError);
  });

  it("parallel commits on one branch: every accepted commit is in history", async () => {
    const { repo } = await newProject();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        commitUnhooked(repo, "main", { files: { [`f${i}.txt`]: `${i}` }, message: `c${i}`, author }),
      ),
    );
    const tip = readRef(repo, branchRef("main"))!;
    const history = (await log(repo, tip, 100)).map((entry) => entry.sha);
    for (const { oid } of results) expect(history).toContain(oid);
    expect(history).toHaveLength(13);
    expect(await listFiles(repo, tip)).toHaveLength(13);
  });

  it("racing builds from another instance are rebuilt on the new tip, losing nothing", async () => {
    const { id, repo } = await newProject();
    // A second handle with another build-lock key stands in for a second instance on the same volume.
    const other = openRepo(`${repo.gitdir}${path.sep}`, id);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        commitUnhooked(i % 2 ? other : repo, "main", { files: { [`h${i}.txt`]: `${i}` }, message: `h${i}`, author }),
      ),
    );
    const history = (await log(repo, readRef(repo, branchRef("main"))!, 100)).map((entry) => entry.sha);
    for (const { oid } of results) expect(history).toContain(oid);
    expect(history).toHaveLength(11);
  });

  it("parallel compare-and-swaps from one tip: exactly one wins", async () => {
    const { repo, tip } = await newProject();
    const attempts = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        commitUnhooked(repo, "main", { files: { [`g${i}`]: "g" }, message: `g${i}`, author, expectedTip: tip }),
      ),
    );
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    for (const failed of attempts.filter((a) => a.status === "rejected"))
      expect(failed.reason).toBeInstanceOf(RefConflictError);
  });

  it("a new ref may not collide with an existing name, loose or packed (a beside a/b)", async () => {
    const { repo, tip } = await newProject();
    await updateRef(repo, branchRef("feature/x"), tip, null);
    await expect(updateRef(repo, branchRef("feature/x"), tip, null)).rejects.toBeInstanceOf(RefConflictError);
    await expect(updateRef(repo, branchRef("feature"), tip, null)).rejects.toMatchObject({
      code: "BRANCH_NAME_CONFLICT",
    });
    await expect(updateRef(repo, branchRef("feature/x/y"), tip, null)).rejects.toMatchObject({
      code: "BRANCH_NAME_CONFLICT",
    });
    await runGit(["pack-refs", "--all"], { gitdir: repo.gitdir });
    await expect(updateRef(repo, branchRef("feature"), tip, null)).rejects.toMatchObject({
      code: "BRANCH_NAME_CONFLICT",
    });
    await expect(updateRef(repo, branchRef("feature/x/y"), tip, null)).rejects.toMatchObject({
      code: "BRANCH_NAME_CONFLICT",
    });
    await deleteRef(repo, branchRef("feature/x"), tip);
    // the freed prefix can now be a branch itself
    await updateRef(repo, branchRef("feature"), tip, null);
    expect(listRefs(repo).branches.map((b) => b.name)).toEqual(["feature", "main"]);
  });

  it("a new ref reads the names on its own path, never every ref of its namespace (a pin per change)", async () => {
    const { repo, tip } = await newProject();
    for (let i = 0; i < 20; i++) await updateRef(repo, `refs/svc/changes/${randomUUID()}`, tip, null);
    const reads = vi.spyOn(fs, "readFileSync");
    const listings = vi.spyOn(fs, "readdirSync");
    const created = `refs/svc/changes/${randomUUID()}`;
    try {
      await updateRef(repo, created, tip, null);
      const touched = [...reads.mock.calls, ...listings.mock.calls].map(([file]) => String(file));
      const others = touched.filter(
        (file) =>
          file.startsWith(path.join(repo.gitdir, "refs/svc/changes/")) && file !== path.join(repo.gitdir, created),
      );
      expect(others).toEqual([]);
      expect(listings.mock.calls.map(([dir]) => String(dir))).not.toContain(path.join(repo.gitdir, "refs/svc/changes"));
    } finally {
      reads.mockRestore();
      listings.mockRestore();
    }
    await expect(updateRef(repo, "refs/svc/changes", tip, null)).rejects.toMatchObject({
      code: "BRANCH_NAME_CONFLICT",
    });
  });

  it("resolveBranch: branches only, unknown 404, branch+tag AMBIGUOUS_REF", async () => {
    const { repo, tip } = await newProject();
    expect(resolveBranch(repo, "main")).toBe(tip);
    await runGit(["tag", "v1", tip], { gitdir: repo.gitdir });
    expect(() => resolveBranch(repo, "v1")).toThrow(expect.objectContaining({ kind: "not_found" }));
    expect(() => resolveBranch(repo, "nope")).toThrow(expect.objectContaining({ kind: "not_found" }));
    await runGit(["tag", "main", tip], { gitdir: repo.gitdir });
    expect(() => resolveBranch(repo, "main")).toThrow(expect.objectContaining({ code: "AMBIGUOUS_REF" }));
    expect(listRefs(repo).tags.map((t) => t.name)).toEqual(["main", "v1"]);
  });

  it("reads packed refs and packed objects", async () => {
    const { repo, tip } = await newProject({ "a/b.txt": "packed" });
    // gc leaves refs loose here (gc.ts); git's own pack-refs packs them as an older repository may hold them.
    await runGit(["gc", "--quiet"], { gitdir: repo.gitdir });
    await runGit(["pack-refs", "--all"], { gitdir: repo.gitdir });
    expect(fs.existsSync(path.join(repo.gitdir, "refs/heads/main"))).toBe(false);
    expect(resolveBranch(repo, "main")).toBe(tip);
    expect(await readFile(repo, tip, "a/b.txt")).toEqual({ kind: "content", value: "packed" });
    const { oid } = await commitUnhooked(repo, "main", { files: { "c.txt": "c" }, message: "after gc", author });
    expect(resolveBranch(repo, "main")).toBe(oid);
  });
});

describe("a new change's pin", () => {
  it("is created while another writer holds the project's lock; anything in its way sends it through that lock", async () => {
    const { repo, tip } = await newProject();
    const next = await writeCommitFromFiles(repo, { parent: tip, files: { "p.txt": "p" }, message: "p", author });
    let release!: () => void;
    const held = withRepoLock(repo, () => new Promise<void>((resolve) => (release = resolve)));
    await vi.waitFor(() => expect(release).toBeTypeOf("function"));
    const fresh = `refs/svc/changes/${randomUUID()}`;
    await pinUnknownRef(repo, fresh, tip);
    expect(readRef(repo, fresh)).toBe(tip);
    expect(fs.existsSync(path.join(repo.gitdir, `${fresh}.lock`))).toBe(false);

    // A lock file in the way (a writer that died) and a ref already there wait for the lock, which clears and moves.
    const crashed = `refs/svc/changes/${randomUUID()}`;
    fs.mkdirSync(path.dirname(path.join(repo.gitdir, crashed)), { recursive: true });
    fs.writeFileSync(path.join(repo.gitdir, `${crashed}.lock`), "");
    let pinned = 0;
    const waiting = [pinUnknownRef(repo, crashed, tip), pinUnknownRef(repo, fresh, next.oid)].map((pin) =>
      pin.then(() => pinned++),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pinned).toBe(0);
    expect(fs.existsSync(path.join(repo.gitdir, `${crashed}.lock`))).toBe(true);
    release();
    await Promise.all([held, ...waiting]);
    expect([readRef(repo, crashed), readRef(repo, fresh)]).toEqual([tip, next.oid]);
    expect(fs.existsSync(path.join(repo.gitdir, `${crashed}.lock`))).toBe(false);
    await expect(pinUnknownRef(repo, "refs/heads/main", tip)).rejects.toThrow(/Not an internal ref/);
  });
});

describe("lock files left by a crashed writer", () => {
  it("a stale <ref>.lock does not block the next update of that ref", async () => {
    const project = await newProject();
    const refPath = path.join(project.repo.gitdir, "refs/heads/main");
    fs.writeFileSync(`${refPath}.lock`, "");
    const next = await writeCommitFromFiles(project.repo, {
      parent: project.tip,
      files: { "b.txt": "b" },
      message: "after crash",
      author,
    });
    await updateRef(project.repo, branchRef("main"), next.oid, project.tip);
    expect(readRef(project.repo, branchRef("main"))).toBe(next.oid);
    expect(fs.existsSync(`${refPath}.lock`)).toBe(false);
  });

  it("a stale packed-refs.lock does not block deleting a packed branch", async () => {
    const project = await newProject();
    await updateRef(project.repo, branchRef("topic"), project.tip, null);
    await runGit(["pack-refs", "--all"], { gitdir: project.repo.gitdir });
    fs.writeFileSync(path.join(project.repo.gitdir, "packed-refs.lock"), "");
    fs.writeFileSync(path.join(project.repo.gitdir, "refs/heads/topic.lock"), "");
    await deleteRef(project.repo, branchRef("topic"), project.tip);
    expect(readRef(project.repo, branchRef("topic"))).toBeNull();
    expect(listRefs(project.repo).branches.map((b) => b.name)).toEqual(["main"]);
  });
});

describe("workspace forks", () => {
  it("share the project's objects and write new ones into its store (the pool), which git never prunes", async () => {
    const { id, repo: project, tip } = await newProject({ "src/main.ts": "main" });
    const {
      repo: ws,
      tip: forkTip,
      registered,
    } = await createWorkspaceFork(id, "ws1", "main", async (at) => `registered at ${at}`);
    expect(registered).toBe(`registered at ${tip}`);
    expect(forkTip).toBe(tip);
    expect(await listFiles(ws, tip)).toEqual(["src/main.ts"]);
    const { oid } = await commitUnhooked(ws, "main", { files: { "src/new.ts": "new" }, message: "ws", author });
    expect(await listFiles(ws, oid)).toEqual(["src/main.ts", "src/new.ts"]);
    // the commit went to the project's store: nothing to copy when a change is opened
    expect(await listFiles(project, oid)).toEqual(["src/main.ts", "src/new.ts"]);
    expect(holdsOwnObjects(ws)).toBe(false);
    expect((await runGit(["config", "gc.pruneExpire"], { gitdir: project.gitdir })).stdout.trim()).toBe("never");
    await runGit(["fsck", "--no-dangling"], { gitdir: ws.gitdir });
    expect((await runGit(["log", "--format=%s", "main"], { gitdir: ws.gitdir })).stdout).toBe("ws\ninitial\n");
    expect(readRef(openProjectRepo(id), branchRef("main"))).toBe(tip);
    // git gc in the project keeps the workspace's commit, reachable from no project ref
    await runGit(["gc", "--quiet"], { gitdir: project.gitdir });
    expect(await listFiles(openProjectRepo(id), oid)).toEqual(["src/main.ts", "src/new.ts"]);
  });

  it("copies objects a push left in the workspace's own store", async () => {
    const { id, repo: project, tip } = await newProject({ "src/main.ts": "main" });
    const { repo: ws } = await createWorkspaceFork(id, "ws3", "main", async () => null);
    const tree = (await runGit(["rev-parse", `${tip}^{tree}`], { gitdir: ws.gitdir })).stdout.trim();
    const pushed = (
      await runGit(["commit-tree", tree, "-p", tip, "-m", "pushed"], {
        gitdir: ws.gitdir,
        env: { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@x" },
      })
    ).stdout.trim();
    expect(holdsOwnObjects(ws)).toBe(true);
    await expect(listFiles(project, pushed)).rejects.toThrow();
    await copyObjects(ws, project, pushed);
    expect(await listFiles(project, pushed)).toEqual(["src/main.ts"]);
  });

  it("of a shallow project cut their history where the project's is, so git can clone them", async () => {
    const { id, repo: project, tip: first } = await newProject({ "a.txt": "1\n" });
    const { oid: second } = await commitUnhooked(project, "main", {
      files: { "a.txt": "2\n" },
      message: "second",
      author,
    });
    // What an import with depth 1 leaves: the last commit, marked shallow, without its parent.
    fs.writeFileSync(path.join(project.gitdir, "shallow"), `${second}\n`);
    fs.rmSync(path.join(project.gitdir, "objects", first.slice(0, 2), first.slice(2)));
    const { repo: ws } = await createWorkspaceFork(id, "shallow-ws", "main", async () => null);
    const clone = path.join(path.dirname(project.gitdir), "clone.git");
    await runGit(["clone", "--quiet", "--bare", `file://${ws.gitdir}`, clone]);
    expect((await runGit(["log", "--format=%s", "main"], { gitdir: clone })).stdout).toBe("second\n");
  });

  it("a failed registration leaves no fork behind, placed or not", async () => {
    const { id } = await newProject();
    await expect(
      createWorkspaceFork(id, "ws2", "main", async () => Promise.reject(new Error("taken"))),
    ).rejects.toThrow("taken");
    const failAfterPlacing = async (_tip: string | null, place: () => void) => {
      place();
      expect(repoExists(openWorkspaceRepo(id, "ws2"))).toBe(true);
      throw new Error("commit failed");
    };
    await expect(createWorkspaceFork(id, "ws2", "main", failAfterPlacing)).rejects.toThrow("commit failed");
    expect(fs.readdirSync(path.join(path.dirname(openProjectRepo(id).gitdir), "workspaces"))).toEqual([]);
  });
});

describe("import staging", () => {
  it("is removed whole while a runner that lost its import still writes into it, and the kept one stays", async () => {
    const { id } = await newProject();
    const lost = initImportStaging(id, "lost", "main");
    const kept = initImportStaging(id, "kept", "main");
    // Writes by absolute path, as the lost runner's `git fetch --git-dir=<absolute>` does.
    const writer = spawn(
      "sh",
      [
        "-c",
        'i=0; while :; do i=$((i+1)); mkdir "$0/objects/d$i"; : > "$0/objects/d$i/o"; done 2>/dev/null',
        lost.gitdir,
      ],
      { stdio: "ignore" },
    );
    try {
      // The writer's pace is the machine's: 47 directories in vi.waitFor's default second on a loaded CI.
      await vi.waitFor(() => expect(fs.readdirSync(path.join(lost.gitdir, "objects")).length).toBeGreaterThan(50), {
        timeout: 15_000,
      });
      for (let round = 0; round < 3; round += 1) removeImportStaging(id, kept);
      const left = fs.readdirSync(path.dirname(lost.gitdir));
      expect(left.filter((name) => name.startsWith("import-"))).toEqual([path.basename(kept.gitdir)]);
    } finally {
      writer.kill();
    }
    removeImportStaging(id);
    expect(fs.readdirSync(path.dirname(lost.gitdir)).filter((name) => name !== "project.git")).toEqual([]);
  });
});

describe("git collected whole", () => {
  it("is forked by the git launcher, not the server's thread; takes its input and answers stdout, stderr and the exit code", async () => {
    const { repo } = await newProject();
    // A shell alias runs as git's child: its parent's (git's) parent is whoever forked git.
    const forker = await spawnGit(["-c", "alias.forker=!cut -d' ' -f4 /proc/$PPID/stat", "forker"]);
    const launcherPid = Number(forker.stdout.toString("utf8").trim());
    expect(launcherPid).toBeGreaterThan(1);
    expect(launcherPid).not.toBe(process.pid);
    expect(fs.readFileSync(`/proc/${launcherPid}/cmdline`, "utf8")).toContain("launcher-process.mjs\0git");

    const hashed = await spawnGit(["hash-object", "-w", "--stdin"], { gitdir: repo.gitdir, input: "launched\n" });
    expect(hashed.exitCode).toBe(0);
    expect(
      (
        await spawnGit(["cat-file", "-p", hashed.stdout.toString("utf8").trim()], { gitdir: repo.gitdir })
      ).stdout.toString("utf8"),
    ).toBe("launched\n");
    const missing = await spawnGit(["cat-file", "-t", "0".repeat(40)], { gitdir: repo.gitdir });
    expect(missing.exitCode).toBe(128);
    expect(missing.stderr).toMatch(/fatal/);
  });

  it("kills git's whole process group when its signal aborts, and rejects with the signal's reason", async () => {
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-git-abort-")), "grandchild");
    const controller = new AbortController();
    // git's alias shell starts a grandchild that writes its pid and sleeps: killing git alone would leave it running.
    const running = spawnGit(["-c", `alias.hang=!sh -c 'echo $$ > ${marker}; exec sleep 30' & wait`, "hang"], {
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(fs.existsSync(marker) && fs.readFileSync(marker, "utf8").trim()).toBeTruthy(), {
      timeout: 20_000,
    });
    const grandchild = Number(fs.readFileSync(marker, "utf8"));
    controller.abort(new Error("stopped by the test"));
    await expect(running).rejects.toThrow("stopped by the test");
    await vi.waitFor(() => expect(processAlive(grandchild)).toBe(false), { timeout: 20_000 });
  });
});

/** Reads a stream to its end. */
async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("git streamed", () => {
  it("is forked by the git launcher and writes its stdout to a socket the server reads; a reader that stops holds git in write", async () => {
    const parent = await streamGit(["-c", "alias.forker=!cut -d' ' -f4 /proc/$PPID/stat", "forker"]);
    const launcherPid = Number((await readAll(parent.stdout)).toString("utf8").trim());
    expect(fs.readFileSync(`/proc/${launcherPid}/cmdline`, "utf8")).toContain("launcher-process.mjs\0git");
    expect(await parent.exit).toMatchObject({ exitCode: 0, signal: null });

    const bytes = 16 * 1024 * 1024; // far past what the socket's buffers hold
    const flood = await streamGit(["-c", `alias.flood=!head -c ${bytes} /dev/zero; echo wrote >&2`, "flood"]);
    let ended = false;
    void flood.exit.then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ended).toBe(false); // nothing read yet: git is blocked writing, its output not held anywhere
    expect((await readAll(flood.stdout)).length).toBe(bytes);
    expect(await flood.exit).toMatchObject({ exitCode: 0, stderr: "wrote\n" });
  });

  it("takes a stdin and an fd 3 of its own (receive-pack's hooks talk on fd 3, through shell tools that need it blocking)", async () => {
    const git = await streamGit(["-c", "alias.both=!tr a-z A-Z <&3 >&3; rev", "both"], {
      writable: true,
      channel: true,
    });
    git.channel!.end("hook says\n");
    git.stdin!.end("stdin says\n");
    const [stdout, channel] = await Promise.all([readAll(git.stdout), readAll(git.channel! as AsyncIterable<Buffer>)]);
    expect(channel.toString("utf8")).toBe("HOOK SAYS\n");
    expect(stdout.toString("utf8")).toBe("syas nidts\n");
    expect((await git.exit).exitCode).toBe(0);
  });

  it("kill ends git's whole process group when its reader leaves early; a failure to start rejects", async () => {
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-git-stream-")), "grandchild");
    const git = await streamGit([
      "-c",
      `alias.hang=!sh -c 'echo $$ > ${marker}; echo started; exec sleep 30' & wait`,
      "hang",
    ]);
    for await (const chunk of git.stdout) if (chunk.toString("utf8").includes("started")) break;
    const grandchild = Number(fs.readFileSync(marker, "utf8"));
    git.kill();
    expect((await git.exit).signal).toBe("SIGKILL");
    await vi.waitFor(() => expect(processAlive(grandchild)).toBe(false), { timeout: 20_000 });

    // Whether the launcher's report comes before its socket or after, the call or its exit rejects.
    const failed = streamGit(["status"], { cwd: path.join(os.tmpdir(), `absent-${randomUUID()}`) });
    await expect(failed.then((started) => started.exit)).rejects.toThrow(/ENOENT/);
  });
});

describe("in-process object writes", () => {
  it("name and render blobs, trees and commits exactly as isomorphic-git does, and git reads them", async () => {
    const { repo } = await newProject();
    const gitdir = repo.gitdir;
    const blob = Buffer.from("é content\r\n");
    expect(await writeBlob(repo, blob)).toBe(await git.writeBlob({ fs: nodeFs, gitdir, blob }));
    const tree = [
      { mode: "100644", path: "a.b", oid: await writeBlob(repo, blob), type: "blob" as const },
      { mode: "040000", path: "a", oid: "4b825dc642cb6eb9a060e54bf8d69288fbee4904", type: "tree" as const },
      { mode: "100755", path: "a-", oid: await writeBlob(repo, blob), type: "blob" as const },
      { mode: "100644", path: "ü", oid: await writeBlob(repo, blob), type: "blob" as const },
    ];
    await git.writeTree({ fs: nodeFs, gitdir, tree: [] });
    const treeOid = await writeTree(repo, tree);
    expect(treeOid).toBe(await git.writeTree({ fs: nodeFs, gitdir, tree }));
    for (const [message, timezoneOffset] of [
      ["\n\nsubject\r\n\nbody\n\n\n", -120],
      ["one line", 0],
      ["ok\n", 330],
    ] as const) {
      const commit = {
        tree: treeOid,
        parent: [],
        author: { name: "A", email: "a@x", timestamp: 1700000000, timezoneOffset },
        committer: { name: "C", email: "c@x", timestamp: 1700000001, timezoneOffset: -0 },
        message,
      };
      const oid = await writeCommitObject(repo, commit);
      expect(oid).toBe(await git.writeCommit({ fs: nodeFs, gitdir, commit }));
    }
    await runGit(["fsck", "--strict", "--no-dangling"], { gitdir });
  });
});

describe("in-process commit reads", () => {
  it("parse loose commits exactly as isomorphic-git does: parents, signatures, extra and repeated headers, messages", async () => {
    const { repo } = await newProject();
    const gitdir = repo.gitdir;
    const tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    const parent = (await writeCommitFromFiles(repo, { parent: null, files: { a: "a\n" }, message: "p", author })).oid;
    const bodies = [
      `tree ${tree}\nparent ${parent}\nparent ${parent}\nauthor A B <a@x> 1700000000 +0530\ncommitter C <c@x> 1700000001 -0000\n\nmerge\n`,
      `tree ${tree}\nauthor A <a@x> 1700000000 -0230\ncommitter C <c@x> 1700000001 +0000\nencoding ISO-8859-1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\n\n\nsubject\r\n\nbody\n\n\n`,
      `tree ${tree}\nparent ${parent}\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 2 +0000\nparent ${tree}\ntree ${parent}\nextra one\nextra two\n\nlate headers ignored`,
    ];
    for (const body of bodies) {
      const oid = (
        await runGit(["hash-object", "-t", "commit", "-w", "--literally", "--stdin"], { gitdir, input: body })
      ).stdout.trim();
      expect(await readCommit(repo, oid)).toEqual((await git.readCommit({ fs: nodeFs, gitdir, oid })).commit);
    }
  });
});
