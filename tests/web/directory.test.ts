import { describe, expect, it } from "vitest";
import { TREE_PAGE_ENTRIES } from "@/server/limits";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { advanceProject, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

/** repository.directory has no REST route: the tree pages read it in-process, typed callers through /api/trpc. */
const directory = (token: string | undefined, project: { path: string }, path: string, page?: number) => {
  const [namespace, slug] = project.path.split("/");
  return call(
    "GET",
    `/api/trpc/repository.directory?input=${encodeURIComponent(JSON.stringify({ namespace, slug, path, page }))}`,
    { token },
  );
};

describe("repository.directory, one page of one directory for the tree pages", () => {
  it("lists a directory's own entries, directories first, each by name, with its README's name", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, {
      "b.txt": "b\n",
      "src/z.ts": "z\n",
      "src/a/deep.ts": "d\n",
      "a.txt": "a\n",
      "src/b.ts": "b\n",
      "docs/Readme.md": "# Docs\n",
    });
    const root = await directory(alice.token, project, "");
    expect(root.status).toBe(200);
    expect(root.body.result.data).toMatchObject({
      total: 4,
      readme: null,
      entries: [
        { name: "docs", kind: "dir" },
        { name: "src", kind: "dir" },
        { name: "a.txt", kind: "file" },
        { name: "b.txt", kind: "file" },
      ],
    });
    const src = (await directory(alice.token, project, "src")).body.result.data;
    expect(src.entries.map((entry: { name: string }) => entry.name)).toEqual(["a", "b.ts", "z.ts"]);
    expect((await directory(alice.token, project, "docs")).body.result.data.readme).toBe("Readme.md");
  });

  it(`pages ${TREE_PAGE_ENTRIES} entries at a time and finds the README on any page`, async () => {
    const alice = await createTestUser();
    const files: Record<string, string> = { "big/README.md": "# Big\n" };
    for (let i = 0; i < TREE_PAGE_ENTRIES + 5; i++) files[`big/f${String(i).padStart(4, "0")}.txt`] = `${i}\n`;
    const project = await projectWith(alice.token, files);
    const first = (await directory(alice.token, project, "big", 1)).body.result.data;
    const second = (await directory(alice.token, project, "big", 2)).body.result.data;
    expect([first.total, first.entries.length, second.entries.length]).toEqual([
      TREE_PAGE_ENTRIES + 6,
      TREE_PAGE_ENTRIES,
      6,
    ]);
    expect(first.entries[0].name).toBe("README.md");
    expect(second.readme).toBe("README.md");
    expect(second.entries.at(-1).name).toBe(`f${String(TREE_PAGE_ENTRIES + 4).padStart(4, "0")}.txt`);
  });

  it("gives each entry the newest commit that touched it (message, time), for the root and for a folder", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n", "src/b.ts": "b\n", "src/c.ts": "c\n" });
    const first = (await directory(alice.token, project, "")).body.result.data.entries[0].lastCommit;
    expect(first).toMatchObject({ summary: "Initial commit" });
    const later = await advanceProject(project, { "src/c.ts": "changed\n" });
    const root = (await directory(alice.token, project, "")).body.result.data;
    expect(root.entries.map((e: { name: string; lastCommit: { oid: string } }) => [e.name, e.lastCommit.oid])).toEqual([
      ["src", later],
      ["a.txt", first.oid],
    ]);
    const src = (await directory(alice.token, project, "src")).body.result.data;
    expect(src.entries.map((e: { name: string; lastCommit: { summary: string } }) => e.lastCommit.summary)).toEqual([
      "Initial commit",
      "direct",
    ]);
    expect(Date.parse(src.entries[1].lastCommit.time)).toBeGreaterThan(0);
  });

  it("answers 404 for no directory there (a file, a missing path) and for a project the caller cannot read; 400 for a bad page", async () => {
    const alice = await createTestUser();
    const stranger = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "a\n", "src/b.ts": "b\n" });
    expect((await directory(alice.token, project, "a.txt")).status).toBe(404);
    expect((await directory(alice.token, project, "nope/deeper")).status).toBe(404);
    expect((await directory(stranger.token, project, "")).status).toBe(404);
    expect((await directory(undefined, project, "")).status).toBe(404);
    expect((await directory(alice.token, project, "", 0)).status).toBe(400);
  });
});

describe("the file and folder pages' reads at a full commit id (GitHub's permalinks)", () => {
  const trpc = (token: string, procedure: string, input: Record<string, unknown>) =>
    call("GET", `/api/trpc/repository.${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token });

  it("repository.directory and repository.blob read at a branch or a full commit id, as it was then; the spec's content read stays branch-only", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "src/a.ts": "first\n" });
    const [namespace, slug] = project.path.split("/");
    await advanceProject(project, { "src/a.ts": "second\n", "src/b.ts": "b\n" });
    const old = project.commit;
    const blob = await trpc(alice.token, "blob", { namespace, slug, path: "src/a.ts", ref: old });
    expect(blob.status, JSON.stringify(blob.body)).toBe(200);
    expect(blob.body.result.data).toMatchObject({ ref: old, commit: old, kind: "content", value: "first\n" });
    expect(
      (await trpc(alice.token, "blob", { namespace, slug, path: "src/a.ts", ref: "main" })).body.result.data.value,
    ).toBe("second\n");
    const dir = await trpc(alice.token, "directory", { namespace, slug, path: "src", ref: old });
    expect(dir.status, JSON.stringify(dir.body)).toBe(200);
    expect(dir.body.result.data).toMatchObject({ ref: old, commit: old, entries: [{ name: "a.ts", kind: "file" }] });
    for (const ref of ["f".repeat(40), old.slice(0, 12)]) {
      expect((await trpc(alice.token, "blob", { namespace, slug, path: "src/a.ts", ref })).status, ref).toBe(404);
      expect((await trpc(alice.token, "directory", { namespace, slug, path: "src", ref })).status, ref).toBe(404);
    }
    expect(
      (await call("GET", `/api/projects/${project.path}/content?path=src/a.ts&ref=${old}`, { token: alice.token }))
        .status,
    ).toBe(404);
    const stranger = await createTestUser();
    expect((await trpc(stranger.token, "blob", { namespace, slug, path: "src/a.ts", ref: old })).status).toBe(404);
  });

  it("repository.history (the History link of a permalink) reads the log from a full commit id; the spec's log stays branch-only", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.ts": "first\n" });
    const [namespace, slug] = project.path.split("/");
    const old = project.commit;
    const newer = await advanceProject(project, { "a.ts": "second\n" });
    const fromOld = await trpc(alice.token, "history", { namespace, slug, ref: old });
    expect(fromOld.status, JSON.stringify(fromOld.body)).toBe(200);
    expect(fromOld.body.result.data.log.map((entry: { sha: string }) => entry.sha)).toEqual([old]);
    const fromMain = (await trpc(alice.token, "history", { namespace, slug, ref: "main" })).body.result.data;
    expect(fromMain.log.map((entry: { sha: string }) => entry.sha)).toEqual([newer, old]);
    expect((await call("GET", `/api/projects/${project.path}/log?ref=${old}`, { token: alice.token })).status).toBe(
      404,
    );
  });
});
