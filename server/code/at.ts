import type { Identity } from "@/server/auth";
import { notFound } from "@/server/errors";
import { isFullOid, isValidBranchName, openProjectRepo, readObject, resolveBranch, type Repo } from "@/server/git";
import { requireProject } from "@/server/projects";

export type ProjectRef = { namespace: string; slug: string };

/** A project the caller can read (404 otherwise) and its repository. */
export async function readableRepo(identity: Identity, ref: ProjectRef) {
  const { project } = await requireProject(identity, ref, "read", { cachedRow: true });
  return { project, repo: openProjectRepo(project.id) };
}

/**
 * A commit named as the read routes name one: a branch (the spec's ref rules: 404 unknown, 409
 * AMBIGUOUS_REF when a tag has the name too) or a full 40-hex id of a commit the repository holds.
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

/** A readable project at `ref` (default: its default branch), with the commit it names. */
export async function readAt(identity: Identity, ref: ProjectRef, name: string | undefined) {
  const { project, repo } = await readableRepo(identity, ref);
  const at = name ?? project.defaultBranch;
  return { project, repo, ref: at, commit: await resolveCommit(repo, at) };
}
