import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, commitTo, projectWith } from "@/server/changes/test-fixtures";
import { grantCollaborator } from "@/server/projects/test-fixtures";
import { cloneOf } from "./worktree";

useTestEnvironment();

const clones: Array<{ remove(): void }> = [];
afterEach(() => clones.splice(0).forEach((clone) => clone.remove()));
const track = <T extends { remove(): void }>(clone: T) => (clones.push(clone), clone);

const lines = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i}`).join("\n") + "\n";

describe("GET /api/changes/{id}/diff", () => {
  it("answers the change's files as git diff base...tip computes them, with renames, totals and list headers", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "old.txt": lines(20), "keep.txt": "one\ntwo\nthree\n" });
    const { change } = await changeWith(alice.token, project, {
      "old.txt": null,
      "new.txt": lines(20).replace("line 5\n", "line five\n"),
      "keep.txt": "one\nTWO\nthree\n",
      "added.md": "# hi\n",
    });
    const res = await call("GET", `/api/changes/${change.id}/diff`, { token: alice.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      changeId: change.id,
      baseSha: change.baseSha,
      tipSha: change.tipSha,
      totals: { files: 3, additions: 3, deletions: 2 },
    });
    expect(res.body.files.map((f: any) => [f.path, f.previousPath, f.status, f.additions, f.deletions])).toEqual([
      ["added.md", null, "added", 1, 0],
      ["keep.txt", null, "modified", 1, 1],
      ["new.txt", "old.txt", "renamed", 1, 1],
    ]);
    const keep = res.body.files[1];
    expect(keep).toMatchObject({
      binary: false,
      tooLarge: false,
      patch: "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
    });
    expect(res.headers.get("x-total-count")).toBe("3");

    const page = await call("GET", `/api/changes/${change.id}/diff?limit=1&offset=1&context=0`, { token: alice.token });
    expect(page.body.files.map((f: any) => f.path)).toEqual(["keep.txt"]);
    expect(page.body.files[0].patch).toBe("@@ -2 +2 @@ one\n-two\n+TWO\n"); // git's hunk header names the line before, as git diff -U0 prints it
    expect(page.body.totals.files).toBe(3);
    expect(page.headers.get("link")).toContain('rel="next"');

    // REST calls the procedure's resolver itself (meta.direct): the same body tRPC answers after its output check.
    const input = encodeURIComponent(JSON.stringify({ id: change.id, limit: 1, offset: 1, context: 0 }));
    const viaTrpc = await call("GET", `/api/trpc/changes.diffFiles?input=${input}`, { token: alice.token });
    expect(viaTrpc.body.result.data).toEqual(page.body);
  });

  it("answers text/x-diff (Accept or ?format=patch) byte for byte as git diff, and git apply takes it", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": lines(10) });
    const { change } = await changeWith(alice.token, project, {
      "a.txt": lines(10).replace("line 3", "line three"),
      "b/c.txt": "c\n",
    });
    const byAccept = await call("GET", `/api/changes/${change.id}/diff`, {
      token: alice.token,
      headers: { accept: "text/x-diff" },
    });
    const byQuery = await call("GET", `/api/changes/${change.id}/diff?format=patch`, { token: alice.token });
    expect(byAccept.status).toBe(200);
    expect(byAccept.headers.get("content-type")).toContain("text/x-diff");
    expect(byQuery.text).toBe(byAccept.text);
    const clone = track(cloneOf(project.id));
    const expected = clone
      .bare("diff", "-M", "--binary", "--full-index", `${change.baseSha}...${change.tipSha}`)
      .toString("utf8");
    expect(byAccept.text).toBe(expected);
    const patchFile = path.join(os.tmpdir(), `read-${change.id}.patch`);
    fs.writeFileSync(patchFile, byAccept.text);
    execFileSync("git", ["apply", "--check", patchFile], { cwd: clone.dir });
    execFileSync("git", ["apply", patchFile], { cwd: clone.dir });
    expect(fs.readFileSync(path.join(clone.dir, "b/c.txt"), "utf8")).toBe("c\n");
    fs.rmSync(patchFile);
  });

  it("revalidates by the change's commits and the page asked: 304 while they stand, 200 once the tip moves, never 304 to a non-reader", async () => {
    const alice = await createTestUser();
    const mallory = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const { change, workspace } = await changeWith(alice.token, project, { "a.txt": "b\n" });
    const url = `/api/changes/${change.id}/diff`;
    const first = await call("GET", url, { token: alice.token });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const held = await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } });
    expect(held.status).toBe(304);
    expect(held.headers.get("etag")).toBe(etag);
    expect((await call("GET", `${url}?context=0`, { token: alice.token })).headers.get("etag")).not.toBe(etag);
    expect((await call("GET", url, { token: mallory.token, headers: { "if-none-match": etag } })).status).toBe(404);

    await commitTo(alice.token, project, workspace, { "a.txt": "c\n" });
    expect((await call("POST", `/api/changes/${change.id}/evaluate`, { token: alice.token })).status).toBe(200);
    const moved = await call("GET", url, { token: alice.token, headers: { "if-none-match": etag } });
    expect(moved.status).toBe(200);
    expect(moved.body.tipSha).not.toBe(change.tipSha);
    expect(moved.body.files[0].patch).toBe("@@ -1 +1 @@\n-a\n+c\n");
    expect(moved.headers.get("etag")).not.toBe(etag);
    expect(
      (await call("GET", url, { token: alice.token, headers: { "if-none-match": moved.headers.get("etag")! } })).status,
    ).toBe(304);
  });

  it("is 404 for callers who cannot read the project (both forms), and 400 for a bad page or context", async () => {
    const alice = await createTestUser();
    const mallory = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "b\n" });
    for (const token of [mallory.token, undefined]) {
      expect((await call("GET", `/api/changes/${change.id}/diff`, { token })).status).toBe(404);
      expect((await call("GET", `/api/changes/${change.id}/diff?format=patch`, { token })).status).toBe(404);
    }
    expect((await call("GET", `/api/changes/nope/diff`, { token: alice.token })).status).toBe(404);
    for (const query of ["limit=0", "limit=301", "offset=-1", "context=21"]) {
      const res = await call("GET", `/api/changes/${change.id}/diff?${query}`, { token: alice.token });
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
    await grantCollaborator(project.id, mallory.id, "read");
    expect((await call("GET", `/api/changes/${change.id}/diff`, { token: mallory.token })).status).toBe(200);
  });
});

describe("GET .../commits/{sha}", () => {
  it("diffs a commit against its first parent: binary marked, a patch over 1 MiB withheld, a root commit against the empty tree", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" }, "public");
    const clone = track(cloneOf(project.id));
    clone.write("logo.png", Buffer.from([0x89, 0x50, 0x00, 0x47, 0x00]));
    clone.write("big.txt", "x".repeat(200) + "\n" + lines(6000, "y".repeat(200)));
    clone.write("README.md", "hello\n");
    const sha = clone.commit("assets\n\nwith a body");
    clone.push();
    const base = `/api/projects/${project.path}`;
    const res = await call("GET", `${base}/commits/${sha}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.commit).toMatchObject({
      sha,
      message: "assets\n\nwith a body\n",
      parents: [project.commit],
      author: { name: "Ann", email: "ann@example.test" },
    });
    expect(res.body.commit.author.date).toMatch(/^\d{4}-\d\d-\d\dT/);
    const byPath = Object.fromEntries(res.body.files.map((f: any) => [f.path, f]));
    expect(byPath["logo.png"]).toMatchObject({
      status: "added",
      binary: true,
      patch: null,
      tooLarge: false,
      additions: 0,
      deletions: 0,
    });
    expect(byPath["big.txt"]).toMatchObject({
      status: "added",
      binary: false,
      patch: null,
      tooLarge: true,
      additions: 6001,
    });
    expect(byPath["README.md"].patch).toBe("@@ -1 +1 @@\n-hi\n+hello\n");
    expect(res.body.totals).toEqual({ files: 3, additions: 6002, deletions: 1 });

    const numstat = clone.bare("diff", "--numstat", "-M", project.commit, sha).toString("utf8");
    expect(numstat).toContain("-\t-\tlogo.png");
    expect(numstat).toContain("6001\t0\tbig.txt");

    const byBranch = await call("GET", `${base}/commits/main`);
    expect(byBranch.body.commit.sha).toBe(sha);
    const root = await call("GET", `${base}/commits/${project.commit}`);
    expect(root.body.commit.parents).toEqual([]);
    expect(root.body.files).toMatchObject([{ path: "README.md", status: "added", patch: "@@ -0,0 +1 @@\n+hi\n" }]);
    expect((await call("GET", `${base}/commits/${"0".repeat(40)}`)).status).toBe(404);
    expect((await call("GET", `${base}/commits/nope`)).status).toBe(404);
    expect((await call("GET", `${base}/commits/${sha.slice(0, 7)}`)).status).toBe(404);
  });
});

describe("diff pages", () => {
  it("pages a diff with type and mode changes, an empty file and a rename: each page is the whole diff's slice, totals from every file", async () => {
    const alice = await createTestUser();
    const project = await projectWith(
      alice.token,
      { "README.md": "hi\n", link: "plain\n", "run.sh": "echo\n", "old.txt": lines(40) },
      "public",
    );
    const clone = track(cloneOf(project.id));
    fs.rmSync(path.join(clone.dir, "link"));
    fs.symlinkSync("README.md", path.join(clone.dir, "link"));
    fs.chmodSync(path.join(clone.dir, "run.sh"), 0o755);
    clone.write("empty", "");
    clone.git("mv", "old.txt", "new.txt");
    clone.write("new.txt", lines(40) + "one more\n");
    clone.write("README.md", "hello\n");
    const sha = clone.commit("shapes");
    clone.push();
    const url = `/api/projects/${project.path}/commits/${sha}`;
    const whole = await call("GET", url);
    expect(whole.status, JSON.stringify(whole.body)).toBe(200);
    expect(
      whole.body.files.map((f: any) => [
        f.path,
        f.status,
        f.previousPath,
        f.additions,
        f.deletions,
        f.patch === "" ? "" : "hunks",
      ]),
    ).toEqual([
      ["README.md", "modified", null, 1, 1, "hunks"],
      ["empty", "added", null, 0, 0, ""],
      ["link", "modified", null, 1, 1, "hunks"],
      ["new.txt", "renamed", "old.txt", 1, 0, "hunks"],
      ["run.sh", "modified", null, 0, 0, ""],
    ]);
    // A type change prints as a deletion and a creation: its patch holds both.
    expect(whole.body.files[2].patch).toBe(
      "@@ -1 +0,0 @@\n-plain\n@@ -0,0 +1 @@\n+README.md\n\\ No newline at end of file\n",
    );
    expect(whole.body.totals).toEqual({ files: 5, additions: 3, deletions: 2 });
    for (let offset = 0; offset < 5; offset++) {
      const page = await call("GET", `${url}?offset=${offset}&limit=1`);
      expect(page.body.files).toEqual([whole.body.files[offset]]);
      expect(page.body.totals).toEqual(whole.body.totals);
    }
    const pair = await call("GET", `${url}?offset=2&limit=2`);
    expect(pair.body.files).toEqual(whole.body.files.slice(2, 4));
    const past = await call("GET", `${url}?offset=7`);
    expect(past.body).toMatchObject({ files: [], totals: whole.body.totals });
  });
});

describe("GET .../compare", () => {
  it("lists head's commits oldest first, ahead/behind counts, and the diff from the merge base", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const clone = track(cloneOf(project.id));
    clone.git("checkout", "-q", "-b", "feature/x");
    clone.write("f1.txt", "1\n");
    const first = clone.commit("f1");
    clone.write("f2.txt", "2\n");
    const second = clone.commit("f2");
    clone.git("checkout", "-q", "main");
    clone.write("a.txt", "main moved\n");
    const mainTip = clone.commit("main");
    clone.push();
    const base = `/api/projects/${project.path}`;
    const res = await call("GET", `${base}/compare?base=main&head=feature%2Fx`, { token: alice.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      base: mainTip,
      head: second,
      mergeBase: project.commit,
      aheadBy: 2,
      behindBy: 1,
      totals: { files: 2, additions: 2, deletions: 0 },
    });
    expect(res.body.commits.map((c: any) => c.sha)).toEqual([first, second]);
    expect(res.body.files.map((f: any) => f.path)).toEqual(["f1.txt", "f2.txt"]);
    const bySha = await call("GET", `${base}/compare?base=${project.commit}&head=${mainTip}`, { token: alice.token });
    expect(bySha.body).toMatchObject({ aheadBy: 1, behindBy: 0, commits: [{ sha: mainTip }] });
    expect((await call("GET", `${base}/compare?base=main`, { token: alice.token })).status).toBe(400);
    expect((await call("GET", `${base}/compare?base=main&head=nope`, { token: alice.token })).status).toBe(404);
    expect((await call("GET", `${base}/compare?base=main&head=main`)).status).toBe(404);
  });
});

describe("GET .../branches/{name}", () => {
  it("answers a branch with aheadBy/behindBy against the default branch; 404 unknown; 409 AMBIGUOUS_REF", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n" });
    const clone = track(cloneOf(project.id));
    clone.git("checkout", "-q", "-b", "topic/one");
    clone.write("t.txt", "t\n");
    const topic = clone.commit("t");
    clone.git("checkout", "-q", "main");
    clone.write("a.txt", "b\n");
    clone.commit("m1");
    clone.write("a.txt", "c\n");
    const main = clone.commit("m2");
    clone.push();
    const base = `/api/projects/${project.path}`;
    const res = await call("GET", `${base}/branches/topic/one`, { token: alice.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ branch: { name: "topic/one", commit: topic, default: false, aheadBy: 1, behindBy: 2 } });
    expect((await call("GET", `${base}/branches/main`, { token: alice.token })).body).toEqual({
      branch: { name: "main", commit: main, default: true, aheadBy: 0, behindBy: 0 },
    });
    expect((await call("GET", `${base}/branches/nope`, { token: alice.token })).status).toBe(404);
    expect((await call("GET", `${base}/branches/main`)).status).toBe(404);
    clone.bare("tag", "topic/one", topic);
    const ambiguous = await call("GET", `${base}/branches/topic%2Fone`, { token: alice.token });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.code).toBe("AMBIGUOUS_REF");
  });
});
