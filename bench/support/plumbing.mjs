// The baseline of the core-loop benchmarks: one agent's cycle done with git plumbing on a scratch
// bare repository (hash-object x3, update-index, write-tree, commit-tree, update-ref, diff-tree,
// merge-tree --write-tree, commit-tree, update-ref). Answers each cycle's time in ms, sorted.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function plumbingCycles(
  cycles,
  {
    warmup = 0,
    files = (cycle) => ({
      [`c${cycle}/f0.ts`]: `${cycle} 0\n`,
      [`c${cycle}/f1.ts`]: `${cycle} 1\n`,
      [`c${cycle}/f2.ts`]: `${cycle} 2\n`,
    }),
  } = {},
) {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-plumbing-"));
  const env = {
    ...process.env,
    GIT_INDEX_FILE: path.join(repo, "ws.index"),
    GIT_AUTHOR_NAME: "b",
    GIT_AUTHOR_EMAIL: "b@x",
    GIT_COMMITTER_NAME: "b",
    GIT_COMMITTER_EMAIL: "b@x",
  };
  const git = (args, input) => execFileSync("git", args, { cwd: repo, input, env }).toString().trim();
  try {
    git(["init", "--quiet", "--bare", "-b", "main"]);
    const root = git(["commit-tree", git(["write-tree"]), "-m", "root"]);
    git(["update-ref", "refs/heads/main", root]);
    git(["update-ref", "refs/heads/ws", root]);
    const times = [];
    for (let cycle = 0; cycle < warmup + cycles; cycle++) {
      const t0 = performance.now();
      const blobs = Object.entries(files(cycle)).map(([file, text]) => [
        file,
        git(["hash-object", "-w", "--stdin"], text),
      ]);
      git(["update-index", "--add", ...blobs.flatMap(([file, oid]) => ["--cacheinfo", `100644,${oid},${file}`])]);
      const wsTip = git(["rev-parse", "refs/heads/ws"]);
      const commit = git(["commit-tree", git(["write-tree"]), "-p", wsTip, "-m", `cycle ${cycle}`]);
      git(["update-ref", "refs/heads/ws", commit, wsTip]);
      const main = git(["rev-parse", "refs/heads/main"]);
      git(["diff-tree", "-r", main, commit]);
      const tree = git(["merge-tree", "--write-tree", main, commit]).split("\n")[0];
      git([
        "update-ref",
        "refs/heads/main",
        git(["commit-tree", tree, "-p", main, "-p", commit, "-m", `merge ${cycle}`]),
        main,
      ]);
      if (cycle >= warmup) times.push(performance.now() - t0);
    }
    return times.sort((a, b) => a - b);
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
}
