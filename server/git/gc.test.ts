import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { commitUnhooked, writeCommitFromFiles } from "./commit";
import { consolidatePacksWhenMany } from "./pack";
import { deleteRef, readRef, updateRef } from "./refs";
import { initProjectRepo, type Repo } from "./repo";
import { runGit } from "./spawn";

useTestEnvironment();

const author = { name: "Alice", email: "alice@example.test" };
const REFS = 40;

/** `git gc` as an operator or receive-pack would run it: the repository's own configuration only. */
async function gcUntil(repo: Repo, done: () => boolean, args: string[]): Promise<number> {
  let runs = 0;
  while (!done()) {
    await runGit(args, { gitdir: repo.gitdir });
    runs++;
  }
  return runs;
}

describe("git gc beside ref moves (gc runs outside the project's ref lock)", () => {
  it("explicit and automatic gc running throughout many creations, moves and deletions lose none and pack no ref", async () => {
    const repo = initProjectRepo(randomUUID(), "main");
    const { oid: base } = await commitUnhooked(repo, "main", {
      files: { "README.md": "hi\n" },
      message: "initial",
      author,
      expectedTip: null,
    });
    const tips: string[] = [];
    for (let i = 0; i < 4; i++)
      tips.push(
        (await writeCommitFromFiles(repo, { parent: base, files: { [`f${i}`]: `${i}\n` }, message: `c${i}`, author }))
          .oid,
      );

    let moving = true;
    const finalTips = new Map<string, string | null>();
    const moves = (async () => {
      await Promise.all(
        Array.from({ length: REFS }, async (_, i) => {
          const ref = `refs/heads/b${i}`;
          await updateRef(repo, ref, tips[0], null);
          for (let step = 1; step < tips.length; step++) await updateRef(repo, ref, tips[step], tips[step - 1]);
          let last: string | null = tips[tips.length - 1];
          if (i % 4 === 0) {
            await deleteRef(repo, ref, last);
            last = null;
          }
          if (i % 8 === 0) {
            await updateRef(repo, ref, tips[1], null);
            last = tips[1];
          }
          finalTips.set(ref, last);
        }),
      );
      moving = false;
    })();
    const [explicit, automatic] = await Promise.all([
      gcUntil(repo, () => !moving, ["gc", "--quiet"]),
      // gc --auto with thresholds that make it act every time, as the pack writer's does past 50 packs.
      gcUntil(repo, () => !moving, [
        "-c",
        "gc.auto=1",
        "-c",
        "gc.autoPackLimit=1",
        "-c",
        "gc.autoDetach=false",
        "gc",
        "--auto",
        "--quiet",
      ]),
      moves,
    ]);
    expect(explicit + automatic).toBeGreaterThan(0);

    expect(finalTips.size).toBe(REFS);
    for (const [ref, tip] of finalTips) expect(readRef(repo, ref), ref).toBe(tip);
    const listed = (
      await runGit(["for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/b*"], { gitdir: repo.gitdir })
    ).stdout
      .trim()
      .split("\n");
    expect(listed.sort()).toEqual(
      [...finalTips]
        .filter(([, tip]) => tip)
        .map(([ref, tip]) => `${ref} ${tip}`)
        .sort(),
    );
    expect(fs.existsSync(path.join(repo.gitdir, "packed-refs"))).toBe(false);
    expect(fs.readdirSync(path.join(repo.gitdir, "refs/heads")).filter((name) => name.endsWith(".lock"))).toEqual([]);
  });

  it("the pack writer's gc --auto, past its pack limit, leaves refs loose", async () => {
    const repo = initProjectRepo(randomUUID(), "main");
    const { oid: base } = await commitUnhooked(repo, "main", {
      files: { "README.md": "hi\n" },
      message: "initial",
      author,
      expectedTip: null,
    });
    for (let i = 0; i < 60; i++) {
      const { oid } = await writeCommitFromFiles(repo, {
        parent: base,
        files: { [`p${i}`]: `${i}\n` },
        message: `p${i}`,
        author,
      });
      await runGit(["pack-objects", "-q", path.join(repo.gitdir, "objects/pack/pack")], {
        gitdir: repo.gitdir,
        input: `${oid}\n`,
      });
    }
    await updateRef(repo, "refs/heads/side", base, null);
    await consolidatePacksWhenMany(repo.gitdir);
    expect(fs.readdirSync(path.join(repo.gitdir, "objects/pack")).filter((name) => name.endsWith(".pack")).length).toBe(
      1,
    );
    expect(readRef(repo, "refs/heads/side")).toBe(base);
    expect(fs.existsSync(path.join(repo.gitdir, "packed-refs"))).toBe(false);
  });
});
