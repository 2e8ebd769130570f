import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import {
  flushStagedObjects,
  initProjectRepo,
  readBlob,
  readCommit,
  readTree,
  runGit,
  withObjectStage,
  writeBlob,
  writeCommitObject,
  writeTree,
  type Repo,
} from "@/server/git";
import { commitUnhooked } from "./commit";

useTestEnvironment();

const person = { name: "A", email: "a@x", timestamp: 1700000000, timezoneOffset: 0 };

async function newProject(): Promise<{ repo: Repo; tip: string }> {
  const repo = initProjectRepo(randomUUID(), "main");
  const { oid } = await commitUnhooked(repo, "main", {
    files: { "README.md": "hello\n" },
    message: "initial",
    author: person,
    expectedTip: null,
  });
  return { repo, tip: oid };
}

const packsOf = (repo: Repo) => fs.readdirSync(path.join(repo.gitdir, "objects", "pack")).sort();
const gitHas = async (repo: Repo, oid: string) =>
  (await runGit(["cat-file", "-e", oid], { gitdir: repo.gitdir, allowExit: [1, 128] })).exitCode === 0;

/** A chain of `count` commits on `tip`, each adding one blob in its own directory (four objects a commit). */
async function writeChain(repo: Repo, tip: string, count: number, blobBytes: (i: number) => Buffer) {
  const written: string[] = [];
  let parent = tip;
  let tree = (await readCommit(repo, tip)).tree;
  for (let i = 0; i < count; i++) {
    const blob = await writeBlob(repo, blobBytes(i));
    const dir = await writeTree(repo, [{ mode: "100644", path: `file${i}.txt`, oid: blob, type: "blob" }]);
    const entries = (await readTree(repo, tree)).concat([{ mode: "040000", path: `dir${i}`, oid: dir, type: "tree" }]);
    tree = await writeTree(repo, entries);
    parent = await writeCommitObject(repo, {
      tree,
      parent: [parent],
      author: person,
      committer: person,
      message: `commit ${i}\n`,
    });
    written.push(blob, dir, tree, parent);
  }
  return { written, tip: parent };
}

describe("objects held in a stage", () => {
  it("are read back from memory, absent from the store until flushed, then written loose when few", async () => {
    const { repo, tip } = await newProject();
    const staged = withObjectStage(repo);
    const { written, tip: chainTip } = await writeChain(staged, tip, 3, (i) => Buffer.from(`blob ${i}\n`));
    expect((await readCommit(staged, chainTip)).message).toBe("commit 2\n");
    expect(await gitHas(repo, chainTip)).toBe(false);
    await expect(readCommit(repo, chainTip)).rejects.toThrow(/not a commit/);
    flushStagedObjects(staged);
    for (const oid of written) expect(await gitHas(repo, oid)).toBe(true);
    expect(packsOf(repo)).toEqual([]);
    expect((await readCommit(repo, chainTip)).parent).toHaveLength(1);
  });

  it("are written as one pack git verifies when many, sizes of every header length included", async () => {
    const { repo, tip } = await newProject();
    const staged = withObjectStage(repo);
    // Blob sizes 0, 15, 16, 2047, 2048 and 300 kB cross the header's 1-, 2- and 3-byte sizes.
    const sizes = [0, 15, 16, 2047, 2048, 300_000];
    const { written, tip: chainTip } = await writeChain(staged, tip, 30, (i) =>
      Buffer.alloc(sizes[i % sizes.length] ?? 7, `${i}`),
    );
    flushStagedObjects(staged);
    const packs = packsOf(repo);
    expect(packs.filter((name) => name.endsWith(".pack"))).toHaveLength(1);
    expect(packs.filter((name) => name.endsWith(".idx"))).toHaveLength(1);
    const verify = await runGit(
      [
        "verify-pack",
        "-v",
        path.join(
          repo.gitdir,
          "objects",
          "pack",
          packs.find((name) => name.endsWith(".idx"))!,
        ),
      ],
      { gitdir: repo.gitdir },
    );
    for (const oid of written) expect(verify.stdout).toContain(oid);
    await runGit(["update-ref", "refs/heads/main", chainTip], { gitdir: repo.gitdir });
    await runGit(["fsck", "--strict", "--no-dangling"], { gitdir: repo.gitdir });
    expect((await runGit(["cat-file", "-s", written[4 * 5]], { gitdir: repo.gitdir })).stdout.trim()).toBe("300000");

    // A reader without the stage finds them in the pack (isomorphic-git reads packs).
    expect((await readBlob(repo, written[4 * 5])).length).toBe(300_000);
    expect((await readCommit(repo, chainTip)).message).toBe("commit 29\n");
    expect((await readTree(repo, written[4 * 7 + 1])).map((e) => e.path)).toEqual(["file7.txt"]);
  });

  it("are held once however often they are written, and a flush with nothing held writes nothing", async () => {
    const { repo } = await newProject();
    const staged = withObjectStage(repo);
    const blob = Buffer.from("same\n");
    const first = await writeBlob(staged, blob);
    expect(await writeBlob(staged, blob)).toBe(first);
    expect(staged.stage!.pending).toBe(1);
    flushStagedObjects(staged);
    expect(staged.stage!.pending).toBe(0);
    flushStagedObjects(staged);
    expect(await gitHas(repo, first)).toBe(true);
  });

  it("past 50 packs in a store, have git consolidate them in the background, losing no object", async () => {
    const { repo, tip } = await newProject();
    let chainTip = tip;
    const written: string[] = [];
    for (let pack = 0; pack < 51; pack++) {
      const staged = withObjectStage(repo);
      const chain = await writeChain(staged, chainTip, 25, (i) => Buffer.from(`pack ${pack} blob ${i}\n`));
      flushStagedObjects(staged);
      chainTip = chain.tip;
      written.push(...chain.written);
    }
    await runGit(["update-ref", "refs/heads/main", chainTip], { gitdir: repo.gitdir });
    // git's background gc took over 20 s on a loaded CI machine.
    const deadline = Date.now() + 60_000;
    const consolidating = () =>
      packsOf(repo).filter((name) => name.endsWith(".pack")).length > 1 ||
      fs.existsSync(path.join(repo.gitdir, "gc.pid"));
    while (consolidating() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(packsOf(repo).filter((name) => name.endsWith(".pack")).length).toBe(1);
    const present = await runGit(["cat-file", "--batch-check"], {
      gitdir: repo.gitdir,
      input: `${written.join("\n")}\n`,
    });
    expect(present.stdout).not.toContain("missing");
    expect((await readCommit(repo, chainTip)).message).toBe("commit 24\n");
  }, 100_000);
});
