import type { Identity } from "@/server/auth";
import { notFound } from "@/server/errors";
import { runGit } from "@/server/git";
import { COMPARE_COMMITS_MAX } from "@/server/limits";
import { between, diffCommits } from "./diff";
import { aheadBehind, logEntries } from "./log";
import { readableRepo, resolveCommit, type ProjectRef } from "./at";

/**
 * GitHub's three-dot compare: head's commits that base lacks (oldest first) and the diff from
 * their merge base to head.
 */
export async function compareRefs(
  identity: Identity,
  ref: ProjectRef,
  names: { base: string; head: string },
  page: { limit: number; offset: number },
) {
  const { repo } = await readableRepo(identity, ref);
  const [base, head] = await Promise.all([resolveCommit(repo, names.base), resolveCommit(repo, names.head)]);
  const { stdout, exitCode } = await runGit(["merge-base", base, head], { gitdir: repo.gitdir, allowExit: [1] });
  if (exitCode === 1) throw notFound(`${names.base} and ${names.head} have no common ancestor`);
  const mergeBase = stdout.trim();
  const [counts, commits, diff] = await Promise.all([
    aheadBehind(repo, base, head),
    logEntries(repo, ["--reverse", `${base}..${head}`]),
    diffCommits(repo, between(mergeBase, head), { context: 3, ...page }),
  ]);
  return { base, head, mergeBase, ...counts, commits: commits.slice(0, COMPARE_COMMITS_MAX), ...diff };
}
