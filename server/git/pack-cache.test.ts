import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { cacheReports } from "@/server/caches";
import { cachedPackIndexes, initProjectRepo, readBlob, readTree, readCommit, runGit, type Repo } from "@/server/git";
import { commitUnhooked } from "./commit";

useTestEnvironment();

const person = { name: "A", email: "a@x", timestamp: 1700000000, timezoneOffset: 0 };
const packIndexesOf = (repo: Repo) =>
  fs
    .readdirSync(path.join(repo.gitdir, "objects", "pack"))
    .filter((name) => name.endsWith(".idx"))
    .map((name) => path.join(repo.gitdir, "objects", "pack", name));

/** A commit of `files` on main, then every object of the store packed into one pack (the old packs gone, as git gc does). */
async function commitThenRepack(repo: Repo, files: Record<string, string>, expectedTip: string | null) {
  const commit = await commitUnhooked(repo, "main", { files, message: "change", author: person, expectedTip });
  await runGit(["repack", "-a", "-d", "-q"], { gitdir: repo.gitdir });
  return commit;
}

async function blobAt(repo: Repo, commit: string, file: string): Promise<string> {
  const entry = (await readTree(repo, (await readCommit(repo, commit)).tree)).find((e) => e.path === file);
  return Buffer.from(await readBlob(repo, entry!.oid)).toString();
}

describe("packs read through isomorphic-git", () => {
  it("are let go once git gc has consolidated them away", async () => {
    const repo = initProjectRepo(randomUUID(), "main");
    const first = await commitThenRepack(repo, { "a.txt": "a\n" }, null);
    const [oldPack] = packIndexesOf(repo);
    expect(await blobAt(repo, first.oid, "a.txt")).toBe("a\n");
    expect(cachedPackIndexes()).toContain(oldPack);

    const second = await commitThenRepack(repo, { "b.txt": "b\n" }, first.oid);
    expect(fs.existsSync(oldPack)).toBe(false);
    expect(await blobAt(repo, second.oid, "a.txt")).toBe("a\n");
    expect(await blobAt(repo, second.oid, "b.txt")).toBe("b\n");
    expect(cachedPackIndexes()).not.toContain(oldPack);
    expect(cachedPackIndexes()).toContain(packIndexesOf(repo)[0]);
  });

  it("a tree read from a pack is parsed once, then kept with its pack index until gc consolidates that away", async () => {
    const misses = () => cacheReports().find((cache) => cache.name === "git.parsedObjects")!.misses!;
    const repo = initProjectRepo(randomUUID(), "main");
    const first = await commitUnhooked(repo, "main", {
      files: { "a.txt": "a\n", "b/c.txt": "c\n" },
      message: "one",
      author: person,
      expectedTip: null,
    });
    const tree = (await readCommit(repo, first.oid)).tree;
    const written = misses();
    const entries = await readTree(repo, tree);
    expect(misses()).toBe(written);

    await runGit(["repack", "-a", "-d", "-q"], { gitdir: repo.gitdir });
    expect(await readTree(repo, tree)).toEqual(entries);
    expect(await readTree(repo, tree)).toEqual(entries);
    expect(misses()).toBe(written + 1);

    const second = await commitThenRepack(repo, { "d.txt": "d\n" }, first.oid);
    const consolidated = misses();
    expect(await readTree(repo, tree)).toEqual(entries);
    expect(await readTree(repo, tree)).toEqual(entries);
    expect(misses()).toBe(consolidated + 1);
    expect(await blobAt(repo, second.oid, "d.txt")).toBe("d\n");
  });
});
