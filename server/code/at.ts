import type { Identity } from "@/server/auth";
import { openProjectRepo } from "@/server/git";
import { requireProject, resolveCommit } from "@/server/projects";

export { resolveBranchName, resolveCommit } from "@/server/projects";

export type ProjectRef = { namespace: string; slug: string };

/** A project the caller can read (404 otherwise) and its repository. */
export async function readableRepo(identity: Identity, ref: ProjectRef) {
  const { project } = await requireProject(identity, ref, "read", { cachedRow: true });
  return { project, repo: openProjectRepo(project.id) };
}

/** A readable project at `ref` (default: its default branch), with the commit it names. */
export async function readAt(identity: Identity, ref: ProjectRef, name: string | undefined) {
  const { project, repo } = await readableRepo(identity, ref);
  const at = name ?? project.defaultBranch;
  return { project, repo, ref: at, commit: await resolveCommit(repo, at) };
}
