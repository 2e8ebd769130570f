// Fixtures of the runner tests: a bare repository to commit trees into, a DATA_DIR of their own,
// and a run of a policy on a tree.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openRepo, writeCommitFromFiles, type Repo } from "@/server/git";
import { parsePolicy } from "@/server/policy/parse";
import type { SandboxPolicy } from "@/server/policy";
import { sandboxAvailable } from "./bwrap";
import { executeRun } from "./execute";
import type { RunResult, RunSpec } from "./types";

export const bwrapMissing = (() => {
  const available = sandboxAvailable();
  return available.ok ? null : available.reason;
})();

export interface RunnerFixture {
  root: string;
  repo: Repo;
  commit(files: Record<string, string>): Promise<string>;
  /** `output`: the log without the runner's own lines (which repeat the commands). */
  run(
    files: Record<string, string>,
    sandbox: string,
    extra?: Partial<RunSpec>,
  ): Promise<RunResult & { log: string; output: string }>;
  cleanup(): void;
}

export function sandboxPolicy(yaml: string): SandboxPolicy {
  const parsed = parsePolicy(`evaluators:\n  sandbox: ${yaml}\n`);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.policy.evaluators.sandbox!;
}

let logs = 0;

/** A repository and a DATA_DIR (set in the environment) under a fresh temporary directory. */
export function runnerFixture(projectId = "p-runner"): RunnerFixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "runners-"));
  // Runs' uids must be able to reach DATA_DIR/runner (the runner makes DATA_DIR itself searchable).
  fs.chmodSync(root, 0o711);
  process.env.DATA_DIR = path.join(root, "data");
  fs.mkdirSync(process.env.DATA_DIR);
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", path.join(root, "r.git")]);
  const repo = openRepo(path.join(root, "r.git"), projectId);
  const author = { name: "t", email: "t@example.com" };
  const commit = async (files: Record<string, string>) =>
    (await writeCommitFromFiles(repo, { parent: null, files, message: "tree", author })).oid;
  return {
    root,
    repo,
    commit,
    async run(files, sandbox, extra = {}) {
      const logPath = path.join(root, `run-${++logs}.log`);
      const result = await executeRun({
        projectId,
        repo,
        commit: await commit(files),
        sandbox: sandboxPolicy(sandbox),
        logPath,
        ...extra,
      });
      const log = fs.readFileSync(extra.logPath ?? logPath, "utf8");
      return {
        ...result,
        log,
        output: log
          .split("\n")
          .filter((line) => !line.startsWith("[runner] "))
          .join("\n"),
      };
    },
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
