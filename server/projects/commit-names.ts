import { notFound } from "@/server/errors";
import { isFullOid, isValidBranchName, readObject, resolveBranch, type Repo } from "@/server/git";

/**
 * A commit named as the code reads and the pages name one: a branch (the spec's ref rules: 404
 * unknown, 409 AMBIGUOUS_REF when a tag has the name too) or a full 40-hex id of a commit the
 * repository holds. The spec's own reads (files, content, log) take branches only.
 */
export async function resolveCommit(repo: Repo, name: string): Promise<string> {
  if (isFullOid(name)) {
    if ((await readObject(repo, name))?.type !== "commit") throw notFound(`No commit ${name}`);
    return name;
  }
  return resolveBranchName(repo, name);
}

/** A branch's commit, per the spec's ref rules; a name git would refuse is unknown (never read as a path). */
export function resolveBranchName(repo: Repo, name: string): string {
  if (!isValidBranchName(name)) throw notFound(`Unknown ref ${name}`);
  return resolveBranch(repo, name);
}
