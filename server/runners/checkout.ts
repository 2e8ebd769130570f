import { spawn } from "node:child_process";
import { inheritedEnvironment } from "@/server/config";
import type { Repo } from "@/server/git";
import type { RunLayout } from "./layout";
import { runsAsRoot } from "./layout";
import { NICE } from "./limits";

/**
 * Writes the files of `commit` into the run's checkout on the host: `git archive` reads the
 * object store, `tar -x` writes as the run's uid (so the files are the run's, and a hostile tree
 * cannot make tar write where that uid may not). git never runs inside the sandbox. Both run at
 * the run's niceness: the checkouts of fifty runs starting together wait behind the server's requests.
 */
export function writeCheckout(repo: Repo, commit: string, layout: RunLayout): Promise<void> {
  return new Promise((resolve, reject) => {
    const env = { ...inheritedEnvironment(), GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
    const [nice, ...niceArgs] = NICE;
    const archive = spawn(nice, [...niceArgs, "git", "--git-dir", repo.gitdir, "archive", "--format=tar", commit], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const owner = runsAsRoot() ? { uid: layout.uid, gid: layout.gid } : {};
    const tar = spawn(nice, [...niceArgs, "tar", "-x", "--no-same-owner", "-C", layout.src], {
      ...owner,
      cwd: layout.src,
      stdio: ["pipe", "ignore", "pipe"],
    });
    archive.stdout.pipe(tar.stdin);
    let stderr = "";
    const collect = (chunk: Buffer) => (stderr += chunk.toString("utf8"));
    archive.stderr.on("data", collect);
    tar.stderr.on("data", collect);
    tar.stdin.on("error", () => undefined); // tar gone early: its exit code says why
    let pending = 2;
    let failed = false;
    const fail = (error: Error) => {
      if (!failed) reject(error);
      failed = true;
    };
    const exited = () => --pending === 0 && !failed && resolve();
    archive.on("error", fail);
    tar.on("error", fail);
    archive.on("close", (code) =>
      code === 0 ? exited() : fail(new Error(`git archive of ${commit} failed (${code}): ${stderr.trim()}`)),
    );
    tar.on("close", (code) =>
      code === 0
        ? exited()
        : fail(new Error(`tar could not write the checkout (${code}): ${stderr.trim().slice(0, 500)}`)),
    );
  });
}
