// The in-process tree diff of a change in a wide directory (issue 46): a soak's agent adds a
// directory per change under its own, so after 30 minutes each diff walks a level of ~600 entries.
// A repository whose `agents/a0` holds --entries directories; a commit adds one more; the diff of
// the two (`diffTrees`, every object already read) is timed --rounds times, median of --repeats.
// So is the commit that adds one more directory (`writeCommitFromFiles`: the level read, the new
// entry placed among the others, as a soak's names fall (c1250 between c125 and c126), the level
// encoded, hashed and written).
// Usage: npx tsx bench/changes/tree-diff.ts [--entries 600] [--rounds 2000] [--repeats 5]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "600" },
    rounds: { type: "string", default: "2000" },
    repeats: { type: "string", default: "5" },
  },
});
const ENTRIES = Number(values.entries);
const ROUNDS = Number(values.rounds);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-tree-diff-"));
Object.assign(process.env, { DATA_DIR: dataDir });
const { initProjectRepo } = await import("@/server/git");
const { commitUnhooked, writeCommitFromFiles } = await import("@/server/git/commit");
const { diffTrees } = await import("@/server/changes/diff/tree-diff");

const author = { name: "Bench", email: "bench@example.test" };
const repo = initProjectRepo("bench-tree-diff", "main");
const files: Record<string, string> = { "README.md": "bench\n" };
for (let i = 0; i < ENTRIES; i++) files[`agents/a0/c${i}/f0.ts`] = `export const v = ${i};\n`;
const { oid: base } = await commitUnhooked(repo, "main", { files, message: "wide", author, expectedTip: null });
const { oid: tip } = await commitUnhooked(repo, "main", {
  files: { [`agents/a0/c${ENTRIES}/f0.ts`]: "export const v = -1;\n" },
  message: "one more",
  author,
});

const diffed = await diffTrees(repo, base, tip);
if (diffed.length !== 1) throw new Error(`expected one added file, got ${diffed.length}`);
/** The median over --repeats of `one`'s microseconds, each the mean of --rounds calls. */
async function microsecondsPer(one: (round: number) => Promise<unknown>) {
  const means: number[] = [];
  for (let repeat = 0; repeat < Number(values.repeats); repeat++) {
    const started = performance.now();
    for (let round = 0; round < ROUNDS; round++) await one(round);
    means.push(((performance.now() - started) * 1000) / ROUNDS);
  }
  means.sort((a, b) => a - b);
  return { median: Math.round(means[Math.floor(means.length / 2)]), all: means.map(Math.round) };
}
const diff = await microsecondsPer(() => diffTrees(repo, base, tip));
let made = 0;
const commit = await microsecondsPer(() =>
  writeCommitFromFiles(repo, {
    parent: tip,
    files: { [`agents/a0/c${ENTRIES + 1 + made++}/f0.ts`]: "export const v = -2;\n" },
    message: "one more again",
    author,
  }),
);
console.log(
  JSON.stringify({
    entries: ENTRIES,
    rounds: ROUNDS,
    microsecondsPerDiff: diff.median,
    microsecondsPerCommit: commit.median,
    all: { diff: diff.all, commit: commit.all },
  }),
);
fs.rmSync(dataDir, { recursive: true, force: true });
