import { actorOf, type Identity } from "@/server/auth";
import {
  branchRef,
  isValidBranchName,
  moveBranch,
  openProjectRepo,
  readRef,
  RefConflictError,
  resolveStartPoint,
  type BranchMove,
  type Repo,
} from "@/server/git";
import { conflict, invalid, notFound } from "@/server/errors";
import { recordEvent } from "@/server/events";
import type { Project } from "@/server/generated/prisma/client";
import { assertNotDeleting, requireProject } from "./access";
import { assertNotImporting } from "./imported";

type ProjectRef = { namespace: string; slug: string };

/** Writers only: anyone else gets 404, as if the project did not exist. */
async function writableProject(identity: Identity, ref: ProjectRef) {
  const { project } = await requireProject(identity, ref, "write", { deniedStatus: 404 });
  assertNotDeleting(project);
  assertNotImporting(project);
  return project;
}

/**
 * Moves a branch of the project through the one door with the `push` event a git push of the same
 * update records, so subscribers (deployments of the branch, webhooks of `push`) cannot tell them apart.
 */
async function moveProjectBranch(
  identity: Identity,
  project: Project,
  repo: Repo,
  name: string,
  from: string | null,
  to: string | null,
): Promise<void> {
  const actor = actorOf(identity);
  const move: BranchMove = {
    project,
    workspace: null,
    ref: branchRef(name),
    from,
    to,
    actor,
    cause: "branch",
    changeIds: [],
  };
  await moveBranch(repo, move, (tx) =>
    recordEvent(tx, { projectId: project.id, kind: "push", actor, data: { ref: move.ref, before: from, after: to } }),
  );
}

/**
 * Creates a branch at a branch or a full commit id (default: the default branch's tip). Errors: 400
 * invalid name or unresolvable start point; 409 BRANCH_EXISTS, BRANCH_NAME_CONFLICT ("a" vs "a/b"),
 * NO_DEFAULT_BRANCH (no start point and no default branch).
 */
export async function createProjectBranch(
  identity: Identity,
  ref: ProjectRef,
  input: { name: string; startPoint?: string },
) {
  const project = await writableProject(identity, ref);
  if (!isValidBranchName(input.name)) throw invalid(`Invalid branch name ${JSON.stringify(input.name)}`);
  const repo = openProjectRepo(project.id);
  let oid: string | null;
  if (input.startPoint !== undefined) oid = await resolveStartPoint(repo, input.startPoint);
  else if (!(oid = readRef(repo, branchRef(project.defaultBranch))))
    throw conflict(`The default branch ${project.defaultBranch} does not exist`, "NO_DEFAULT_BRANCH");
  try {
    await moveProjectBranch(identity, project, repo, input.name, null, oid);
  } catch (error) {
    if (error instanceof RefConflictError) throw conflict(`Branch ${input.name} already exists`, "BRANCH_EXISTS");
    throw error;
  }
  return { name: input.name, oid };
}

/** Deletes a branch (never the default one: 409 DEFAULT_BRANCH_PROTECTED); 404 when absent. */
export async function deleteProjectBranch(identity: Identity, ref: ProjectRef, name: string) {
  const project = await writableProject(identity, ref);
  if (name === project.defaultBranch) throw conflict(`${name} is the default branch`, "DEFAULT_BRANCH_PROTECTED");
  const repo = openProjectRepo(project.id);
  const oid = isValidBranchName(name) ? readRef(repo, branchRef(name)) : null;
  if (!oid) throw notFound(`Unknown branch ${name}`);
  await moveProjectBranch(identity, project, repo, name, oid, null);
  return { deleted: true, name };
}
