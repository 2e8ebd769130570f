import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Only server/git writes refs, and only through its door (docs/queue.md, "One door moves a
// branch"): moveBranch, moveTag, commitToBranch (with its move), pinRef (refs/svc/*) and
// fetchIntoRef. The deep-import rules of .dependency-cruiser.cjs keep other areas out of
// server/git's modules; this keeps the door itself free of raw writers and the rest of the
// production code from asking git to write a ref.

/** Writers that skip the event and the subscribers: they stay inside server/git. */
const RAW_WRITERS = [
  "updateRef",
  "updateRefWhileLocked",
  "deleteRef",
  "createBranch",
  "deleteBranch",
  "runMoveHooks",
  "runAfterMoveHooks",
  "commitUnhooked",
  "swapLooseRef",
];

/** git subcommands that write a ref of the repository they run in (a fetch: its refspec's destination). */
const REF_WRITING_SUBCOMMANDS = [
  "update-ref",
  "symbolic-ref",
  "pack-refs",
  "gc",
  "maintenance",
  "fetch",
  "pull",
  "clone",
  "tag",
  "branch",
  "replace",
  "notes",
  "reflog",
  "commit",
  "merge",
  "reset",
  "checkout",
  "switch",
  "rebase",
  "cherry-pick",
  "revert",
  "am",
  "stash",
];
// The subcommand first in the argument list of a call that runs git (runGit, spawnGitWatched, a
// helper named *git*, spawn("git", ...)), after any `--git-dir <dir>` and `-c key=value` pairs.
const REF_WRITE = new RegExp(
  `(?:\\w*[Gg]it\\w*\\(\\s*(?:[\\w.?]+,\\s*)?|spawn\\(\\s*"git",\\s*)\\[\\s*(?:"--git-dir",\\s*[\\w.]+,\\s*)?(?:"-c",\\s*(?:"[^"]*"|\`[^\`]*\`),\\s*)*["'\`](${REF_WRITING_SUBCOMMANDS.join("|")})["'\`]`,
);

const PRODUCTION_ROOTS = ["server", "app", "inngest", "scripts"];
const TEST_CODE = /(\.test\.tsx?$|(^|\/)test-[^/]+\.ts$)/;

function productionFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === "generated" || entry.name === "depcruise-fixtures" ? [] : productionFiles(file);
    return /\.(ts|tsx|mjs)$/.test(entry.name) && !TEST_CODE.test(file) ? [file] : [];
  });
}

describe("only server/git writes refs", () => {
  it("its front door exports no raw ref writer", async () => {
    const door = Object.keys(await import("@/server/git"));
    expect(door.filter((name) => RAW_WRITERS.includes(name))).toEqual([]);
    for (const mover of ["moveBranch", "moveTag", "commitToBranch", "pinRef", "fetchIntoRef"])
      expect(door).toContain(mover);
  });

  it("no module outside server/git runs a git subcommand that writes a ref", () => {
    const offenders = PRODUCTION_ROOTS.flatMap(productionFiles)
      .filter((file) => !file.startsWith(`server${path.sep}git${path.sep}`))
      .flatMap((file) => {
        const match = REF_WRITE.exec(fs.readFileSync(file, "utf8"));
        return match ? [`${file}: git ${match[1]}`] : [];
      });
    expect(offenders).toEqual([]);
  });

  it("the check sees a ref write where one is", () => {
    for (const line of [
      `runGit(["update-ref", ref, oid])`,
      `spawnGitWatched(["fetch", "--quiet", url, spec])`,
      `providerGit(repo, ["fetch", url])`,
      `runGit(["-c", "gc.auto=1", "gc", "--auto"])`,
      `spawn("git", ["--git-dir", repo.gitdir, "update-ref", ref])`,
      "runGit([`tag`, name])",
    ]) {
      expect(REF_WRITE.test(line), line).toBe(true);
    }
    for (const line of [
      `runGit(["merge-tree", "--write-tree", a, b])`,
      `runGit(["commit-tree", tree])`,
      `step.run("fetch", fn)`,
      `z.enum(["merge", "squash"])`,
      `runGit(["push", url, spec])`,
    ]) {
      expect(REF_WRITE.test(line), line).toBe(false);
    }
  });
});
