import { inheritedEnvironment } from "@/server/config";
import type { Repo } from "@/server/git";
import type { RunLayout } from "./layout";
import { runsAsRoot } from "./layout";
import { launch } from "./launcher";
import { NICE } from "./limits";

/**
 * Writes the files of `commit` into the run's checkout on the host: `git archive` reads the
 * object store, `tar -x` writes as the run's uid (so the files are the run's, and a hostile tree
 * cannot make tar write where that uid may not). git never runs inside the sandbox. Both run at
 * the run's niceness: the checkouts of fifty runs starting together wait behind the server's requests.
 */
export async function writeCheckout(repo: Repo, commit: string, layout: RunLayout): Promise<void> {
  const env = { ...inheritedEnvironment(), GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
  const [nice, ...niceArgs] = NICE;
  const owner = runsAsRoot() ? { uid: layout.uid, gid: layout.gid } : {};
  let stderr = "";
  const { exited } = launch(
    [
      { command: nice, args: [...niceArgs, "git", "--git-dir", repo.gitdir, "archive", "--format=tar", commit], env },
      {
        command: nice,
        args: [...niceArgs, "tar", "-x", "--no-same-owner", "-C", layout.src],
        cwd: layout.src,
        ...owner,
      },
    ],
    { onOutput: (chunk) => (stderr += chunk.toString("utf8")) },
  );
  const [archive, tar] = await exited;
  if (archive.error ?? tar.error) throw new Error(`The checkout could not start: ${archive.error ?? tar.error}`);
  if (archive.code !== 0) throw new Error(`git archive of ${commit} failed (${archive.code}): ${stderr.trim()}`);
  if (tar.code !== 0) throw new Error(`tar could not write the checkout (${tar.code}): ${stderr.trim().slice(0, 500)}`);
}
