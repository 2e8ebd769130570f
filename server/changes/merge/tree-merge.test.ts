import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRepo, readCommit, writeCommitFromFiles, type FileMap, type Repo } from "@/server/git";
import { mergeTreesInProcess } from "./tree-merge";

const author = { name: "t", email: "t@example.com", timestamp: 1_700_000_000 };
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}\n`).join("");
const BASE: FileMap = {
  "README.md": "readme\n",
  "a.txt": lines(20, "a"),
  "b.txt": lines(20, "b"),
  "d/x.txt": lines(20, "x"),
  "d/y.txt": lines(20, "y"),
  "deep/a/b/c.txt": "c\n",
  "deep/a/b/d.txt": "d\n",
  "deep/a/e.txt": "e\n",
  f: "a file\n",
};

let root: string;
let repo: Repo;
let base: string;

const git = (...args: string[]) => execFileSync("git", ["--git-dir", repo.gitdir, ...args], { encoding: "utf8" });
const commit = async (files: FileMap) =>
  (await writeCommitFromFiles(repo, { parent: base, files, message: "c", author })).oid;
const treeOf = async (oid: string) => (await readCommit(repo, oid)).tree;

/** git's answer: the tree merge-tree writes and whether it merged cleanly. */
function gitMerge(ours: string, theirs: string): { tree: string; clean: boolean } {
  try {
    return { tree: git("merge-tree", "--write-tree", ours, theirs).split("\n")[0], clean: true };
  } catch (error) {
    return { tree: String((error as { stdout: string }).stdout).split("\n")[0], clean: false };
  }
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "tree-merge-"));
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", path.join(root, "r.git")]);
  repo = openRepo(path.join(root, "r.git"), "test");
  base = (await writeCommitFromFiles(repo, { parent: null, files: BASE, message: "base", author })).oid;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

// Each case: what each side changes from the base, and whether the merge is decided in-process.
const cases: Array<{ name: string; ours: FileMap | "base"; theirs: FileMap | "base"; inProcess: boolean }> = [
  {
    name: "adds in different directories",
    ours: { "src/one.ts": "1\n" },
    theirs: { "lib/two.ts": "2\n" },
    inProcess: true,
  },
  {
    name: "adds of different files in one new directory",
    ours: { "src/one.ts": "1\n" },
    theirs: { "src/two.ts": "2\n", "src/sub/three.ts": "3\n" },
    inProcess: true,
  },
  {
    name: "edits of different files in one directory",
    ours: { "d/x.txt": lines(21, "x") },
    theirs: { "d/y.txt": lines(19, "y") },
    inProcess: true,
  },
  {
    name: "a delete beside an edit",
    ours: { "d/x.txt": null },
    theirs: { "d/y.txt": "y\n", "b.txt": "b\n" },
    inProcess: true,
  },
  {
    name: "deletes emptying a directory from both sides",
    ours: { "d/x.txt": null },
    theirs: { "d/y.txt": null },
    inProcess: true,
  },
  {
    name: "edits deep on both sides",
    ours: { "deep/a/b/c.txt": "C\n" },
    theirs: { "deep/a/b/d.txt": "D\n", "deep/a/new.txt": "n\n" },
    inProcess: true,
  },
  { name: "a fast-forward", ours: "base", theirs: { "a.txt": "new\n", "z/z.txt": "z\n" }, inProcess: true },
  { name: "theirs already in ours", ours: { "a.txt": "new\n" }, theirs: "base", inProcess: true },
  {
    name: "the same edit on both sides",
    ours: { "a.txt": "same\n", "b.txt": "ours\n" },
    theirs: { "a.txt": "same\n" },
    inProcess: true,
  },
  {
    name: "a rename the other side does not touch",
    ours: { "a.txt": null, "moved/a.txt": lines(20, "a") },
    theirs: { "b.txt": "b2\n" },
    inProcess: true,
  },
  {
    name: "a file becoming a directory the other side does not touch",
    ours: { f: null, "f/inside.txt": "now a dir\n" },
    theirs: { "a.txt": "a2\n" },
    inProcess: true,
  },
  {
    name: "non-overlapping edits of one file",
    ours: { "a.txt": `first\n${lines(20, "a")}` },
    theirs: { "a.txt": `${lines(20, "a")}last\n` },
    inProcess: false,
  },
  { name: "conflicting edits", ours: { "a.txt": "ours\n" }, theirs: { "a.txt": "theirs\n" }, inProcess: false },
  { name: "modify/delete", ours: { "b.txt": null }, theirs: { "b.txt": "changed\n" }, inProcess: false },
  {
    name: "rename/rename to two names",
    ours: { "a.txt": null, "y.txt": lines(20, "a") },
    theirs: { "a.txt": null, "z.txt": lines(20, "a") },
    inProcess: false,
  },
  {
    name: "a delete on both sides",
    ours: { "a.txt": null },
    theirs: { "a.txt": null, "c.txt": "c\n" },
    inProcess: false,
  },
  {
    name: "a rename against an edit of its source",
    ours: { "a.txt": null, "moved.txt": lines(20, "a") },
    theirs: { "a.txt": lines(21, "a") },
    inProcess: false,
  },
  {
    name: "a directory rename against an add into it",
    ours: { "d/x.txt": null, "d/y.txt": null, "e/x.txt": lines(20, "x"), "e/y.txt": lines(20, "y") },
    theirs: { "d/new.txt": "n\n" },
    inProcess: false,
  },
  { name: "the same add on both sides", ours: { "new.txt": "n\n" }, theirs: { "new.txt": "n\n" }, inProcess: false },
  { name: "different adds of one path", ours: { "new.txt": "o\n" }, theirs: { "new.txt": "t\n" }, inProcess: false },
  {
    name: "a directory deleted against an edit inside it",
    ours: { "deep/a/b/c.txt": null, "deep/a/b/d.txt": null },
    theirs: { "deep/a/b/c.txt": "C\n" },
    inProcess: false,
  },
  {
    name: "a file and a directory added at one path",
    ours: { g: "file\n" },
    theirs: { "g/inside.txt": "dir\n" },
    inProcess: false,
  },
];

describe("mergeTreesInProcess", () => {
  it.each(cases)(
    "$name: in-process only where expected, and then the tree git writes",
    async ({ ours, theirs, inProcess }) => {
      const oursCommit = ours === "base" ? base : await commit(ours);
      const theirsCommit = theirs === "base" ? base : await commit(theirs);
      const result = await mergeTreesInProcess(
        repo,
        await treeOf(base),
        await treeOf(oursCommit),
        await treeOf(theirsCommit),
      );
      const expected = gitMerge(oursCommit, theirsCommit);
      if (inProcess) {
        expect(expected.clean).toBe(true);
        expect(result).toBe(expected.tree);
      } else {
        expect(result).toBeNull();
      }
    },
  );
});
