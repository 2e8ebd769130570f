import type { Repo } from "./repo";
import { spawnGitWatched, type GitOutput, type WatchedGitOptions } from "./spawn";

/**
 * `git fetch <url> +<from>:<into>`: the remote's `from` into this repository's `into`, written by
 * git's own ref transaction. Only for refs nothing else writes: an internal ref of a live project
 * (`refs/svc/upstream/<branch>`) or a staging repository not yet anyone's. Never followed by gc
 * (`--no-auto-gc`). Answers git's output whatever its exit code: the caller names the failure.
 */
export function fetchIntoRef(
  repo: Repo,
  url: string,
  from: string,
  into: string,
  options: Omit<WatchedGitOptions, "gitdir"> & { args?: string[] } = {},
): Promise<GitOutput & { aborted: boolean }> {
  const { args = [], ...spawnOptions } = options;
  return spawnGitWatched(["fetch", "--no-write-fetch-head", "--no-auto-gc", ...args, url, `+${from}:${into}`], {
    ...spawnOptions,
    gitdir: repo.gitdir,
  });
}
