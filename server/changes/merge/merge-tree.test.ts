import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRepo, writeCommitFromFiles, writeCommitObject, type Repo } from "@/server/git";
import { mergeCommits, mergeOnBase, MergeSession } from "./merge-tree";

const author = { name: "t", email: "t@example.com", timestamp: 1_700_000_000 };
let root: string;
let repo: Repo;
let base: string;

const commit = async (parent: string | null, files: Record<string, string | null>) =>
  (await writeCommitFromFiles(repo, { parent, files, message: "c", author })).oid;
const show = (tree: string, file: string) =>
  execFileSync("git", ["--git-dir", repo.gitdir, "show", `${tree}:${file}`]).toString();

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "merge-tree-"));
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", path.join(root, "r.git")]);
  repo = openRepo(path.join(root, "r.git"), "test");
  base = await commit(null, { "a.txt": "1\n2\n3\n", "b.txt": "b\n", "dir/c.txt": "c\n" });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("mergeCommits", () => {
  it("merges disjoint edits cleanly", async () => {
    const ours = await commit(base, { "b.txt": "B\n" });
    const theirs = await commit(base, { "dir/c.txt": "C\n", "new.txt": "n\n" });
    const result = await mergeCommits(repo, ours, theirs);
    expect(result.clean).toBe(true);
    expect(result.conflictingFiles).toEqual([]);
    expect(show(result.tree, "b.txt")).toBe("B\n");
    expect(show(result.tree, "dir/c.txt")).toBe("C\n");
    expect(show(result.tree, "new.txt")).toBe("n\n");
  });

  it("merges non-overlapping edits of one file", async () => {
    const ours = await commit(base, { "a.txt": "one\n2\n3\n" });
    const theirs = await commit(base, { "a.txt": "1\n2\nthree\n" });
    const result = await mergeCommits(repo, ours, theirs);
    expect(result.clean).toBe(true);
    expect(show(result.tree, "a.txt")).toBe("one\n2\nthree\n");
  });

  it("reports content and modify/delete conflicts with their stages", async () => {
    const ours = await commit(base, { "a.txt": "X\n2\n3\n", "b.txt": null });
    const theirs = await commit(base, { "a.txt": "Y\n2\n3\n", "b.txt": "changed\n" });
    const result = await mergeCommits(repo, ours, theirs);
    expect(result.clean).toBe(false);
    expect(result.conflictingFiles).toEqual(["a.txt", "b.txt"]);
    expect(result.stages.filter((s) => s.path === "a.txt").map((s) => s.stage)).toEqual([1, 2, 3]);
    expect(result.stages.filter((s) => s.path === "b.txt").map((s) => s.stage)).toEqual([1, 3]);
    expect(show(result.tree, "a.txt")).toContain("<<<<<<<");
  });
});

describe("mergeOnBase (a revert: base = the reverted commit, theirs = its parent)", () => {
  const missing = (tree: string, file: string) => {
    expect(() =>
      execFileSync("git", ["--git-dir", repo.gitdir, "cat-file", "-e", `${tree}:${file}`], { stdio: "ignore" }),
    ).toThrow();
  };

  it("undoes the reverted commit's edits and keeps later ones", async () => {
    const landed = await commit(base, { "a.txt": "ONE\n2\n3\n", "added.txt": "x\n", "b.txt": null });
    const later = await commit(landed, { "a.txt": "ONE\n2\nTHREE\n", "later.txt": "l\n" });
    const result = await mergeOnBase(repo, landed, later, base);
    expect(result.clean).toBe(true);
    expect(show(result.tree, "a.txt")).toBe("1\n2\nTHREE\n");
    expect(show(result.tree, "b.txt")).toBe("b\n");
    expect(show(result.tree, "later.txt")).toBe("l\n");
    missing(result.tree, "added.txt");
  });

  it("uses the given base, not the one git would find", async () => {
    // `later` does not descend from `landed`: git alone would take `base` as the merge base.
    const landed = await commit(base, { "dir/c.txt": "C\n" });
    const later = await commit(base, { "dir/c.txt": "C\n", "b.txt": "B\n" });
    const result = await mergeOnBase(repo, landed, later, base);
    expect(result.clean).toBe(true);
    expect(show(result.tree, "dir/c.txt")).toBe("c\n");
    expect(show(result.tree, "b.txt")).toBe("B\n");
  });

  it("conflicts when a later commit changed the same lines", async () => {
    const landed = await commit(base, { "a.txt": "ONE\n2\n3\n" });
    const later = await commit(landed, { "a.txt": "UNO\n2\n3\n" });
    const result = await mergeOnBase(repo, landed, later, base);
    expect(result.clean).toBe(false);
    expect(result.conflictingFiles).toEqual(["a.txt"]);
  });
});

/** The parents' command lines of the running `git merge-tree --stdin` processes of `gitdir`. */
function mergeProcessParents(gitdir: string): string[] {
  const parents: string[] = [];
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`${gitdir}\0merge-tree\0`)) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
      parents.push(fs.readFileSync(`/proc/${ppid}/cmdline`, "utf8"));
    } catch {
      // ended meanwhile
    }
  }
  return parents;
}

describe("MergeSession", () => {
  it("runs a chain of merges through one process, started by git's launcher, each onto the previous result", async () => {
    const session = new MergeSession(repo);
    try {
      const tips = [];
      for (let i = 0; i < 5; i++) tips.push(await commit(base, { [`f${i}.txt`]: `${i}\n` }));
      const conflicting = await commit(base, { "a.txt": "Z\n2\n3\n" });
      const headEdit = await commit(base, { "a.txt": "W\n2\n3\n" });
      let head = headEdit;
      for (const tip of tips) {
        const result = await session.merge(head, tip);
        expect(result.clean).toBe(true);
        // The merge commit is written after the session started; the next merge builds on it.
        head = await writeCommitObject(repo, {
          tree: result.tree,
          parent: [head, tip],
          author: { ...author, timezoneOffset: 0 },
          committer: { ...author, timezoneOffset: 0 },
          message: "merge\n",
        });
      }
      const bad = await session.merge(head, conflicting);
      expect(bad.clean).toBe(false);
      // git decided this one: its process runs on for the session, a child of git's launcher.
      const parents = mergeProcessParents(repo.gitdir);
      expect(parents).toHaveLength(1);
      expect(parents[0]).toContain("launcher-process.mjs\0git");
      expect(bad.conflictingFiles).toEqual(["a.txt"]);
      const after = await session.merge(head, tips[0]);
      expect(after.clean).toBe(true);
      expect(show(after.tree, "f4.txt")).toBe("4\n");
    } finally {
      session.close();
    }
  });
});
