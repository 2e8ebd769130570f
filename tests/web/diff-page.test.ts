import { describe, expect, it } from "vitest";
import { DIFF_EXPAND_CONTEXT_MAX, DIFF_EXPAND_FILES_MAX, DIFF_FILE_LINES_MAX, DIFF_PAGE_FILES } from "@/server/limits";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

/** changes.diff has no REST route: the change page reads it in-process, typed callers through /api/trpc. */
const diffPage = (token: string | undefined, id: string, page?: number, expand?: unknown) =>
  call("GET", `/api/trpc/changes.diff?input=${encodeURIComponent(JSON.stringify({ id, page, expand }))}`, { token });

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

describe("changes.diff, the change page's paginated hunks", () => {
  it("numbers added, removed and context lines on their sides", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "notes.txt": "one\ntwo\nthree\nfour\n" });
    const { change } = await changeWith(alice.token, project, {
      "notes.txt": "one\nTWO\nthree\nfour\nfive\n",
      "new.md": "# New\n",
    });
    const res = await diffPage(alice.token, change.id);
    expect(res.status).toBe(200);
    const { totalFiles, files } = res.body.result.data;
    expect(totalFiles).toBe(2);
    expect(files.map((file: { path: string; status: string }) => [file.path, file.status])).toEqual([
      ["new.md", "added"],
      ["notes.txt", "modified"],
    ]);
    const notes = files[1];
    expect(notes).toMatchObject({ additions: 2, deletions: 1, binary: false, truncated: false });
    expect(notes.hunks[0].lines).toEqual([
      { kind: "context", oldLine: 1, newLine: 1, text: "one" },
      { kind: "del", oldLine: 2, newLine: null, text: "two" },
      { kind: "add", oldLine: null, newLine: 2, text: "TWO" },
      { kind: "context", oldLine: 3, newLine: 3, text: "three" },
      { kind: "context", oldLine: 4, newLine: 4, text: "four" },
      { kind: "add", oldLine: null, newLine: 5, text: "five" },
    ]);
  });

  it(`pages ${DIFF_PAGE_FILES} files at a time and collapses a file past ${DIFF_FILE_LINES_MAX} lines`, async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const files: Record<string, string> = {
      "big.txt": Array.from({ length: DIFF_FILE_LINES_MAX + 500 }, (_, i) => `line ${i}`).join("\n") + "\n",
    };
    for (let i = 0; i < DIFF_PAGE_FILES + 9; i++) files[`f/${String(i).padStart(3, "0")}.txt`] = `${i}\n`;
    const { change } = await changeWith(alice.token, project, files);
    const first = (await diffPage(alice.token, change.id, 1)).body.result.data;
    const second = (await diffPage(alice.token, change.id, 2)).body.result.data;
    expect(first.totalFiles).toBe(DIFF_PAGE_FILES + 10);
    expect(first.files).toHaveLength(DIFF_PAGE_FILES);
    expect(second.files).toHaveLength(10);
    const big = first.files[0];
    expect(big).toMatchObject({ path: "big.txt", truncated: true, additions: DIFF_FILE_LINES_MAX + 500 });
    expect(big.hunks.flatMap((hunk: { lines: unknown[] }) => hunk.lines)).toHaveLength(DIFF_FILE_LINES_MAX);
    expect(second.files.at(-1).hunks[0].lines).toEqual([
      { kind: "add", oldLine: null, newLine: 1, text: `${DIFF_PAGE_FILES + 8}` },
    ]);
    expect((await diffPage(alice.token, change.id, 3)).body.result.data.files).toEqual([]);
  });

  it("shows an expanded file with more context around its changes, joining hunks that meet, and the others as they were", async () => {
    const alice = await createTestUser();
    const long = numbered(100);
    const project = await projectWith(alice.token, { "a.txt": "a\n", "long.txt": long.join("\n") + "\n" });
    const edited = long.map((line, i) => (i === 29 || i === 69 ? `${line} edited` : line));
    const { change } = await changeWith(alice.token, project, {
      "a.txt": "A\n",
      "long.txt": edited.join("\n") + "\n",
    });
    type Hunk = { lines: Array<{ kind: string; newLine: number | null }> };
    const plain = (await diffPage(alice.token, change.id, 1)).body.result.data;
    expect(plain.files[1].hunks.map((hunk: Hunk) => hunk.lines.length)).toEqual([8, 8]);

    const wider = (await diffPage(alice.token, change.id, 1, [{ file: 1, context: 10 }])).body.result.data;
    const [first, second] = wider.files[1].hunks as Hunk[];
    expect(first.lines[0]).toMatchObject({ kind: "context", newLine: 20 });
    expect(first.lines.at(-1)).toMatchObject({ kind: "context", newLine: 40 });
    expect(second.lines[0]).toMatchObject({ kind: "context", newLine: 60 });
    expect(wider.files[0]).toEqual(plain.files[0]);

    const whole = (await diffPage(alice.token, change.id, 1, [{ file: 1, context: DIFF_EXPAND_CONTEXT_MAX }])).body
      .result.data;
    expect(whole.files[1].hunks).toHaveLength(1);
    const lines = (whole.files[1].hunks[0] as Hunk).lines;
    expect(lines.filter((line) => line.kind !== "del").map((line) => line.newLine)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    // A file of another page is not this page's to expand: the page is as it was.
    const elsewhere = (await diffPage(alice.token, change.id, 1, [{ file: 60, context: 20 }])).body.result.data;
    expect(elsewhere.files).toEqual(plain.files);
  });

  it("answers 400 to an expansion out of bounds", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    const tooMany = Array.from({ length: DIFF_EXPAND_FILES_MAX + 1 }, (_, file) => ({ file, context: 10 }));
    for (const expand of [
      [{ file: 0, context: DIFF_EXPAND_CONTEXT_MAX + 1 }],
      [{ file: -1, context: 10 }],
      [{ file: 0, context: 1.5 }],
      [{ file: "0", context: 10 }],
      tooMany,
      "0:10",
    ])
      expect((await diffPage(alice.token, change.id, 1, expand)).status).toBe(400);
  });

  it("answers 404 to callers who cannot read the project, and 400 to a bad page", async () => {
    const alice = await createTestUser();
    const mallory = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "a\n" });
    expect((await diffPage(mallory.token, change.id)).status).toBe(404);
    expect((await diffPage(undefined, change.id)).status).toBe(404);
    expect((await diffPage(alice.token, change.id, 0)).status).toBe(400);
  });
});
