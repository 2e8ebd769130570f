import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { initProjectRepo, readCommit, runGit, uniqueMergeBase, writeCommitFromFiles, type Repo } from "@/server/git";
import { commitUnhooked } from "@/server/git/commit";
import { diffTrees, diffTreesWithGit } from "./tree-diff";

useTestEnvironment();

const author = { name: "A", email: "a@example.test" };
const env = { GIT_AUTHOR_NAME: "A", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "A", GIT_COMMITTER_EMAIL: "a@x" };

async function repoWith(files: Record<string, string>): Promise<{ repo: Repo; tip: string }> {
  const repo = initProjectRepo(randomUUID(), "main");
  const { oid } = await commitUnhooked(repo, "main", { files, message: "initial", author, expectedTip: null });
  return { repo, tip: oid };
}

/** A commit on `parents` whose tree is `parent`'s with one entry of the root tree replaced (mode and oid given). */
async function withRootEntry(
  repo: Repo,
  parent: string,
  entry: { mode: string; path: string; oid: string },
): Promise<string> {
  const tree = (await runGit(["ls-tree", (await readCommit(repo, parent)).tree], { gitdir: repo.gitdir })).stdout
    .split("\n")
    .filter((line) => line && !line.endsWith(`\t${entry.path}`));
  const type = entry.mode === "160000" ? "commit" : "blob";
  tree.push(`${entry.mode} ${type} ${entry.oid}\t${entry.path}`);
  const newTree = (await runGit(["mktree"], { gitdir: repo.gitdir, input: `${tree.join("\n")}\n` })).stdout.trim();
  return (
    await runGit(["commit-tree", newTree, "-p", parent, "-m", "entry"], { gitdir: repo.gitdir, env })
  ).stdout.trim();
}

describe("in-process tree diff", () => {
  it("lists what git diff base...tip lists, in git's order, for adds, edits, deletes, file/directory swaps, mode and type changes, names beyond the BMP", async () => {
    const { repo, tip: base } = await repoWith({
      "a.txt": "a\n",
      "a/b.txt": "b\n",
      "dir/x": "x\n",
      "dir/y/z": "z\n",
      "gone.txt": "g\n",
      f: "file\n",
      l: "l\n",
      "ü.md": "u\n",
      "\uFFFD.md": "r\n",
      "\u{1F600}.md": "e\n",
    });
    const { oid: step } = await commitUnhooked(repo, "main", {
      files: {
        "a.txt": "a2\n",
        "a-b": "new\n",
        "gone.txt": null,
        f: null,
        "f/inside.txt": "now a dir\n",
        "dir/y/z": "z2\n",
        "new/deep/file": "d\n",
        "ü.md": "u2\n",
        "\uFFFD.md": "r2\n",
        "\u{1F600}.md": "e2\n",
      },
      message: "change",
      author,
    });
    const blob = (
      await runGit(["hash-object", "-w", "--stdin"], { gitdir: repo.gitdir, input: "target" })
    ).stdout.trim();
    const executable = await withRootEntry(repo, step, {
      mode: "100755",
      path: "a.txt",
      oid: (await runGit(["rev-parse", `${step}:a.txt`], { gitdir: repo.gitdir })).stdout.trim(),
    });
    const tip = await withRootEntry(repo, executable, { mode: "120000", path: "l", oid: blob });
    const inProcess = await diffTrees(repo, base, tip);
    expect(inProcess).toEqual(await diffTreesWithGit(repo, base, tip));
    expect(inProcess.map((e) => `${e.status} ${e.path}`)).toEqual([
      "A a-b",
      "M a.txt",
      "M dir/y/z",
      "D f",
      "A f/inside.txt",
      "D gone.txt",
      "T l",
      "A new/deep/file",
      "M ü.md",
      "M \uFFFD.md",
      "M \u{1F600}.md",
    ]);
  });

  it("diffs against the merge base, as git does, when the base moved on", async () => {
    const { repo, tip: fork } = await repoWith({ "README.md": "r\n" });
    const { oid: mainTip } = await commitUnhooked(repo, "main", {
      files: { "main.txt": "m\n" },
      message: "main",
      author,
    });
    const { oid: tip } = await writeCommitFromFiles(repo, {
      parent: fork,
      files: { "topic.txt": "t\n" },
      message: "t",
      author,
    });
    expect(await uniqueMergeBase(repo, mainTip, tip)).toBe(fork);
    expect(await diffTrees(repo, mainTip, tip)).toEqual(await diffTreesWithGit(repo, mainTip, tip));
  });
});

describe("uniqueMergeBase", () => {
  it("agrees with git merge-base across merges, and leaves criss-cross histories to git", async () => {
    const { repo, tip: root } = await repoWith({ r: "r\n" });
    const commit = async (parents: string[], name: string) =>
      (
        await runGit(
          ["commit-tree", (await readCommit(repo, root)).tree, ...parents.flatMap((p) => ["-p", p]), "-m", name],
          {
            gitdir: repo.gitdir,
            env: { ...env, GIT_COMMITTER_DATE: `${1700000000 + name.length * 10 + name.charCodeAt(0)} +0000` },
          },
        )
      ).stdout.trim();
    const a1 = await commit([root], "a1");
    const b1 = await commit([root], "b1");
    const m1 = await commit([a1, b1], "m1"); // main merges b1
    const b2 = await commit([b1], "b2");
    const gitBase = async (x: string, y: string) =>
      (await runGit(["merge-base", x, y], { gitdir: repo.gitdir })).stdout.trim();
    expect(await uniqueMergeBase(repo, m1, b2)).toBe(await gitBase(m1, b2));
    expect(await uniqueMergeBase(repo, b2, b2)).toBe(b2);
    expect(await uniqueMergeBase(repo, root, b2)).toBe(root);
    // criss-cross: x and y both merge a1 and b1: two merge bases
    const x = await commit([a1, b1], "x");
    const y = await commit([b1, a1], "yy");
    expect(await uniqueMergeBase(repo, x, y)).toBeNull();
  });

  it("agrees with git merge-base --all on random histories, skewed commit dates included", async () => {
    const { repo, tip: root } = await repoWith({ r: "r\n" });
    const tree = (await readCommit(repo, root)).tree;
    // A seeded generator: the same histories on every run.
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const commits = [root];
    for (let i = 0; i < 60; i++) {
      const first = commits[commits.length - 1 - random(Math.min(commits.length, 8))];
      const second = random(3) === 0 ? commits[random(commits.length)] : null;
      const parents = second && second !== first ? [first, second] : [first];
      // Dates mostly rising, one in five out of order (clocks disagree, rebased or imported history).
      const date = 1_700_000_000 + (random(5) === 0 ? random(200) : i * 10);
      const args = ["commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-m", `c${i}`];
      commits.push(
        (
          await runGit(args, { gitdir: repo.gitdir, env: { ...env, GIT_COMMITTER_DATE: `${date} +0000` } })
        ).stdout.trim(),
      );
    }
    for (let pair = 0; pair < 40; pair++) {
      const [x, y] = [commits[random(commits.length)], commits[random(commits.length)]];
      const all = (await runGit(["merge-base", "--all", x, y], { gitdir: repo.gitdir })).stdout.trim().split("\n");
      expect(await uniqueMergeBase(repo, x, y)).toBe(all.length === 1 ? all[0] : null);
    }
  });

  it("reads each commit once per process: a later walk over the same history reads no object", async () => {
    const { repo, tip: fork } = await repoWith({ "README.md": "r\n" });
    const { oid: mainTip } = await commitUnhooked(repo, "main", {
      files: { "main.txt": "m\n" },
      message: "main",
      author,
    });
    const { oid: tip } = await writeCommitFromFiles(repo, {
      parent: fork,
      files: { "topic.txt": "t\n" },
      message: "t",
      author,
    });
    expect(await uniqueMergeBase(repo, mainTip, tip)).toBe(fork);
    // The commits' files gone, the walk still answers from what it read the first time.
    for (const oid of [fork, mainTip, tip]) fs.rmSync(path.join(repo.gitdir, "objects", oid.slice(0, 2), oid.slice(2)));
    expect(await uniqueMergeBase(repo, mainTip, tip)).toBe(fork);
  });
});
