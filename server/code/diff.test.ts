import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRepo } from "@/server/git";
import { DIFF_PATCH_BYTES_MAX } from "@/server/limits";
import { between, diffCommits } from "./diff";
import { SectionReader } from "./diff-sections";
import { SummaryReader } from "./diff-summary";

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: "Ann",
  GIT_AUTHOR_EMAIL: "ann@example.test",
  GIT_COMMITTER_NAME: "Ann",
  GIT_COMMITTER_EMAIL: "ann@example.test",
  GIT_CONFIG_NOSYSTEM: "1",
};
let dir: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env, maxBuffer: 1 << 28 });
const write = (file: string, content: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), content);
};
const commit = () => {
  git("add", "-A");
  git("commit", "-q", "-m", "c");
  return git("rev-parse", "HEAD").toString().trim();
};
const numbered = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join("");

let base: string;
let head: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "diff-counts-"));
  git("init", "-q", "-b", "main");
  write("content.txt", "a\n-- y\n-- a/content.txt\nb\n");
  write("nonl.txt", "one\ntwo");
  write("crlf.txt", "a\r\nb\r\nc\r\n");
  write("run.sh", "echo\n");
  write("old.txt", numbered(20));
  write("data.bin", Buffer.from([1, 0, 2, 0, 3]));
  write("logo.png", Buffer.from([0x89, 0x50, 0x00, 0x47]));
  write("plain.txt", numbered(8, "plain"));
  write("link", "plain\n");
  write("gone.txt", numbered(3));
  write("big.txt", numbered(3000, "x".repeat(30)));
  base = commit();
  // Hunk lines that look like a file's header ("+++", "---") or a hunk header are content.
  write("content.txt", "a\n++ x\n++ b/content.txt\n@@ -1 +1 @@\nb\n");
  write("nonl.txt", "one\n2");
  write("crlf.txt", "a\r\nB\r\nc\r\nd\r\n");
  fs.chmodSync(path.join(dir, "run.sh"), 0o755);
  git("mv", "old.txt", "new.txt");
  write("new.txt", numbered(20).replace("line 7\n", "line seven\n"));
  write("data.bin", Buffer.from([1, 0, 2, 0, 4]));
  for (const folder of ["assets", "docs"]) fs.mkdirSync(path.join(dir, folder));
  git("mv", "logo.png", "assets/logo.png");
  git("mv", "plain.txt", "docs/plain.txt");
  fs.rmSync(path.join(dir, "link"));
  fs.symlinkSync("plain.txt", path.join(dir, "link"));
  fs.rmSync(path.join(dir, "gone.txt"));
  write("added.txt", "new\n");
  write("big.txt", numbered(3000, "y".repeat(30)));
  head = commit();
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `git diff --numstat` per path (a rename under its new path): what the service's counts must equal. */
function numstat(): Map<string, { additions: number; deletions: number; binary: boolean }> {
  const tokens = git("diff", "-M", "--numstat", "-z", base, head).toString("utf8").split("\0");
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  for (let i = 0; i < tokens.length - 1; i++) {
    const [added, deleted, file] = tokens[i].split("\t");
    const at = file === "" ? tokens[(i += 2)] : file; // a rename: "a\td\t", old path, new path
    counts.set(at, {
      additions: added === "-" ? 0 : Number(added),
      deletions: deleted === "-" ? 0 : Number(deleted),
      binary: added === "-",
    });
  }
  return counts;
}

/** The service's readers fed `git diff -M --raw -z -p` in chunks of `size` bytes, keeping every section. */
function readInChunks(size: number) {
  const output = git("diff", "-M", "--raw", "-z", "-p", "--no-abbrev", base, head);
  const summary = new SummaryReader();
  const sections = new SectionReader(0, Number.MAX_SAFE_INTEGER);
  let inPatches = false;
  for (let at = 0; at < output.length; at += size) {
    const chunk = output.subarray(at, at + size);
    const patches = inPatches ? chunk : summary.feed(chunk);
    if (patches === null) continue;
    inPatches = true;
    sections.feed(patches);
  }
  sections.finish();
  return { files: summary.files, sections: sections.sections };
}

/** A file's sections in what readInChunks read (a type change has two). */
function sectionsOf({ files, sections }: ReturnType<typeof readInChunks>, file: string) {
  const index = files.findIndex((entry) => entry.path === file);
  const first = files.slice(0, index).reduce((count, entry) => count + (entry.status === "T" ? 2 : 1), 0);
  return sections.slice(first, first + (files[index].status === "T" ? 2 : 1));
}

describe("diff counts from the patch bytes", () => {
  const expected = {
    "added.txt": [1, 0],
    "assets/logo.png": [0, 0],
    "big.txt": [3000, 3000],
    "content.txt": [3, 2],
    "crlf.txt": [2, 1],
    "data.bin": [0, 0],
    "docs/plain.txt": [0, 0],
    "gone.txt": [0, 3],
    link: [1, 1],
    "new.txt": [1, 1],
    "nonl.txt": [1, 1],
    "run.sh": [0, 0],
  };

  it.each([1, 7, 65_536])("counts every section alike when git's output comes in chunks of %i bytes", (size) => {
    const whole = readInChunks(1 << 30);
    const chunked = readInChunks(size);
    expect(chunked).toEqual(whole);
    // A type change (link: file -> symlink) prints two sections; every other file one.
    expect(whole.sections).toHaveLength(whole.files.length + 1);
    const [content] = sectionsOf(whole, "content.txt");
    expect(content).toMatchObject({ additions: 3, deletions: 2, binary: false });
    expect(content.patch).toBe(
      "@@ -1,4 +1,5 @@\n a\n--- y\n--- a/content.txt\n+++ x\n+++ b/content.txt\n+@@ -1 +1 @@\n b\n",
    );
    const byPath = (file: string) => sectionsOf(whole, file)[0];
    expect(byPath("nonl.txt")).toMatchObject({
      additions: 1,
      deletions: 1,
      patch: "@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+2\n\\ No newline at end of file\n",
    });
    expect(sectionsOf(whole, "link").map((section) => [section.additions, section.deletions])).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(byPath("crlf.txt")).toMatchObject({
      additions: 2,
      deletions: 1,
      patch: "@@ -1,3 +1,4 @@\n a\r\n-b\r\n+B\r\n c\r\n+d\r\n",
    });
    expect(byPath("run.sh")).toMatchObject({ additions: 0, deletions: 0, binary: false, patch: "" });
    expect(byPath("data.bin")).toMatchObject({ additions: 0, deletions: 0, binary: true, patch: "" });
    expect(byPath("big.txt").patch!.length).toBeGreaterThan(65_536 * 2);
  });

  it("reads the summary's statuses and paths, and which files are one blob on both sides", () => {
    const { files } = readInChunks(7);
    expect(files.map((file) => [file.path, file.status, file.previousPath, file.sameBlob])).toEqual([
      ["added.txt", "A", null, false],
      ["assets/logo.png", "R", "logo.png", true],
      ["big.txt", "M", null, false],
      ["content.txt", "M", null, false],
      ["crlf.txt", "M", null, false],
      ["data.bin", "M", null, false],
      ["docs/plain.txt", "R", "plain.txt", true],
      ["gone.txt", "D", null, false],
      ["link", "T", null, false],
      ["new.txt", "R", "old.txt", false],
      ["nonl.txt", "M", null, false],
      ["run.sh", "M", null, true],
    ]);
  });

  it("answers the counts and binary marks git diff --numstat gives, on every page", async () => {
    const repo = openRepo(path.join(dir, ".git"), "diff-counts");
    const counts = numstat();
    const whole = await diffCommits(repo, between(base, head), { context: 3, offset: 0, limit: 100 });
    expect(Object.fromEntries(whole.files.map((file) => [file.path, [file.additions, file.deletions]]))).toEqual(
      expected,
    );
    expect(
      whole.files.map((file) => [
        file.path,
        { additions: file.additions, deletions: file.deletions, binary: file.binary },
      ]),
    ).toEqual([...counts.entries()]);
    // A pure rename of a binary file has no hunks to tell: git's numstat decides, as it did.
    expect(whole.files.filter((file) => file.binary).map((file) => file.path)).toEqual(["assets/logo.png", "data.bin"]);
    const additions = [...counts.values()].reduce((sum, count) => sum + count.additions, 0);
    const deletions = [...counts.values()].reduce((sum, count) => sum + count.deletions, 0);
    expect(whole.totals).toEqual({ files: 12, additions, deletions });
    for (let offset = 0; offset < 12; offset += 5) {
      const page = await diffCommits(repo, between(base, head), { context: 3, offset, limit: 5 });
      expect(page).toEqual({ totals: whole.totals, files: whole.files.slice(offset, offset + 5) });
    }
  });

  it("withholds a patch over the cap and still counts its lines", async () => {
    const lines = Math.ceil(DIFF_PATCH_BYTES_MAX / 100);
    write("huge.txt", numbered(lines, "h".repeat(100)));
    const huge = commit();
    const diff = await diffCommits(openRepo(path.join(dir, ".git"), "diff-counts"), between(head, huge), {
      context: 3,
      offset: 0,
      limit: 10,
    });
    expect(diff.files).toEqual([
      {
        path: "huge.txt",
        previousPath: null,
        status: "added",
        additions: lines,
        deletions: 0,
        binary: false,
        patch: null,
        tooLarge: true,
      },
    ]);
  });
});
