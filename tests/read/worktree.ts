import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { openProjectRepo } from "@/server/git";

/**
 * A clone of a project's bare repository for building history with real `git` commands; `push()`
 * sends every branch and tag back (the project's repository is then what git made).
 */
export function cloneOf(projectId: string) {
  const gitdir = openProjectRepo(projectId).gitdir;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "read-wt-"));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "Ann",
    GIT_AUTHOR_EMAIL: "ann@example.test",
    GIT_COMMITTER_NAME: "Ann",
    GIT_COMMITTER_EMAIL: "ann@example.test",
    GIT_CONFIG_NOSYSTEM: "1",
  };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8" }).trim();
  execFileSync("git", ["clone", "-q", gitdir, dir], { env });
  const write = (file: string, content: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  };
  const commit = (message: string) => {
    git("add", "-A");
    git("commit", "-q", "-m", message);
    return git("rev-parse", "HEAD");
  };
  const push = () =>
    execFileSync("git", ["push", "-q", "--all", gitdir], { cwd: dir, env }) &&
    execFileSync("git", ["push", "-q", "--tags", gitdir], { cwd: dir, env });
  /** git run on the project's bare repository itself (what the service compares with). */
  const bare = (...args: string[]) => execFileSync("git", ["--git-dir", gitdir, ...args], { env, maxBuffer: 1 << 28 });
  return {
    dir,
    git,
    write,
    commit,
    push,
    bare,
    gitdir,
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
