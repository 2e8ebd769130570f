import type { ProjectSource } from "@/server/generated/prisma/client";
import { branchRef, fetchIntoRef, readRef, runGit, spawnGitWatched, type Repo } from "@/server/git";
import {
  ProviderError,
  classifyGitFailure,
  compareCommits,
  gitFailureMessage,
  providerGitEnv,
  sourceGitUrl,
} from "@/server/providers";

/** Where a project keeps the source branch's last fetched tip. */
export const upstreamRef = (source: Pick<ProjectSource, "branch">) => `refs/svc/upstream/${source.branch}`;

function providerOutput(result: { exitCode: number; stdout: Buffer; stderr: string }): string {
  if (result.exitCode !== 0)
    throw new ProviderError(classifyGitFailure(result.stderr), gitFailureMessage(result.stderr));
  return result.stdout.toString("utf8");
}

/** The source branch's tip as the provider advertises it (`git ls-remote`, nothing fetched). */
export async function remoteTip(source: ProjectSource): Promise<string> {
  const out = providerOutput(
    await spawnGitWatched(["ls-remote", sourceGitUrl(source), branchRef(source.branch)], { env: providerGitEnv() }),
  );
  const tip = out.split("\t", 1)[0].trim();
  if (!/^[0-9a-f]{40}$/.test(tip))
    throw new ProviderError("NOT_FOUND", `Branch ${source.branch} was not found on the source`);
  return tip;
}

/** Fetches the source branch into refs/svc/upstream/<branch>; `deepen` also extends a shallow history. */
export async function fetchUpstream(
  repo: Repo,
  source: ProjectSource,
  options: { deepen?: number | "all" } = {},
): Promise<string> {
  const deepen = options.deepen === "all" ? ["--unshallow"] : options.deepen ? [`--deepen=${options.deepen}`] : [];
  // --no-show-forced-updates: the forced-update check walks history for nothing (the ref is ours and forced).
  providerOutput(
    await fetchIntoRef(repo, sourceGitUrl(source), branchRef(source.branch), upstreamRef(source), {
      args: ["--no-tags", "--no-show-forced-updates", ...deepen],
      env: providerGitEnv(),
    }),
  );
  const tip = readRef(repo, upstreamRef(source));
  if (!tip) throw new ProviderError("NOT_FOUND", `Branch ${source.branch} was not found on the source`);
  return tip;
}

/** The merge base of two commits, or null when the (possibly shallow) history has none. */
export async function mergeBase(repo: Repo, a: string, b: string): Promise<string | null> {
  const { stdout, exitCode } = await runGit(["merge-base", a, b], { gitdir: repo.gitdir, allowExit: [1] });
  return exitCode === 0 ? stdout.trim() : null;
}

/** Commits reachable from `to` and not from `from` (all of `to`'s history when `from` is null or unknown here). */
export async function countCommits(repo: Repo, from: string | null, to: string): Promise<number> {
  const { stdout } = await runGit(["rev-list", "--count", "--ignore-missing", to, ...(from ? [`^${from}`] : [])], {
    gitdir: repo.gitdir,
  });
  return Number(stdout.trim());
}

/**
 * How many commits the source's `tip` is ahead of the last synced commit, from the provider's
 * compare API (nothing fetched: the sync job fetches once). When the provider no longer knows the
 * last synced commit (a force push upstream), the branch is fetched and counted here instead.
 */
export async function commitsBehindSource(repo: Repo, source: ProjectSource, tip: string): Promise<number> {
  if (source.lastSyncedCommit) {
    try {
      return (await compareCommits(source, source.lastSyncedCommit, tip)).aheadBy;
    } catch (error) {
      if (!(error instanceof ProviderError) || error.category !== "NOT_FOUND") throw error;
    }
  }
  await fetchUpstream(repo, source);
  return countCommits(repo, source.lastSyncedCommit, tip);
}

export const isShallow = (repo: Repo) =>
  runGit(["rev-parse", "--is-shallow-repository"], { gitdir: repo.gitdir }).then(
    ({ stdout }) => stdout.trim() === "true",
  );
