import type { Identity } from "@/server/auth";
import { aheadBehind } from "./log";
import { readableRepo, resolveBranchName, type ProjectRef } from "./at";

/** One branch, and how far it is ahead of and behind the default branch. */
export async function branchDetail(identity: Identity, ref: ProjectRef, name: string) {
  const { project, repo } = await readableRepo(identity, ref);
  const commit = resolveBranchName(repo, name);
  const defaultCommit = name === project.defaultBranch ? commit : resolveBranchName(repo, project.defaultBranch);
  const counts = await aheadBehind(repo, defaultCommit, commit);
  return { branch: { name, commit, default: name === project.defaultBranch, ...counts } };
}
