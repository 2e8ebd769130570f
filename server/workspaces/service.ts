import type { Project, Workspace } from "@/server/generated/prisma/client";
import { actingAgentId, actingUserId, actorOf, type Identity } from "@/server/auth";
import { dateFromJson, db, type DbOrTx } from "@/server/db";
import { recordEvent } from "@/server/events";
import {
  branchRef,
  commitToBranch,
  createWorkspaceFork,
  headBranch,
  openWorkspaceRepo,
  repoExists,
  type FileMap,
  type RecordMove,
} from "@/server/git";
import { conflict, internal, notFound } from "@/server/errors";
import {
  assertFileMapWithinLimits,
  assertNotDeleting,
  assertNotImporting,
  assertWorkspaceScope,
  atLeast,
  commitAuthorship,
  findProjectAlongside,
  type ProjectAlongside,
  projectPath,
  projectRole,
  type ProjectRole,
  requireProject,
  workspaceRemote,
} from "@/server/projects";

type ProjectRef = { namespace: string; slug: string };

const GENERATED_NAME_ATTEMPTS = 5;
const generatedName = (attempt: number) => `ws-${Date.now() + attempt}`;
const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === "P2002";

export function workspaceView(project: Project, workspace: Workspace) {
  return {
    id: workspace.id,
    name: workspace.name,
    remote: workspaceRemote(project, workspace.name),
    createdById: workspace.createdById,
    createdByAgentId: workspace.createdByAgentId,
    createdAt: workspace.createdAt.toISOString(),
  };
}

async function forkOnce(identity: Identity, project: Project, name: string): Promise<Workspace> {
  const prisma = await db();
  const { registered } = await createWorkspaceFork(project.id, name, project.defaultBranch, (tip, place) =>
    prisma.$transaction(async (tx) => {
      const workspace = await tx.workspace.create({
        data: {
          projectId: project.id,
          name,
          createdById: actingUserId(identity) ?? null,
          createdByAgentId: actingAgentId(identity),
        },
      });
      await recordEvent(tx, {
        projectId: project.id,
        kind: "workspace.created",
        actor: actorOf(identity),
        data: { workspace: name, commit: tip },
      });
      place();
      return workspace;
    }),
  );
  return registered;
}

/**
 * Creates a workspace: a fork of the project at its default branch's tip. Writers only (403 for
 * readers); 409 when the name is taken or the project is being deleted.
 */
export async function createWorkspace(identity: Identity, ref: ProjectRef, requestedName: string | undefined) {
  // A workspace key may only "create" its own workspace, which exists (409: MCP submit_change reuses it).
  const { project } = await requireProject(identity, ref, "write", { workspace: requestedName ?? "" });
  assertNotDeleting(project);
  assertNotImporting(project);
  for (let attempt = 0; ; attempt++) {
    const name = requestedName ?? generatedName(attempt);
    try {
      const workspace = await forkOnce(identity, project, name);
      return { project, workspace };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (requestedName !== undefined || attempt + 1 >= GENERATED_NAME_ATTEMPTS)
        throw conflict(`Workspace ${name} already exists`, "CONFLICT");
    }
  }
}

export async function listWorkspaces(identity: Identity, ref: ProjectRef) {
  const { project } = await requireProject(identity, ref, "read");
  const workspaces = await (
    await db()
  ).workspace.findMany({ where: { projectId: project.id }, orderBy: { createdAt: "asc" } });
  return { project, workspaces };
}

/** A project's workspace by name, or null. */
export async function findWorkspace(projectId: string, name: string): Promise<Workspace | null> {
  return (await db()).workspace.findUnique({ where: { projectId_name: { projectId, name } } });
}

/** The workspace `name`, read with its project in one statement (`requireProject`'s `alongside`). */
export const workspaceAlongside = (name: string): ProjectAlongside<Workspace> => ({
  sql: (projectId, param) =>
    `(SELECT to_jsonb(w) FROM "Workspace" AS w WHERE w."projectId" = ${projectId} AND w.name = ${param(name)})`,
  fromJson: (value) => {
    const row = value as Omit<Workspace, "createdAt"> & { createdAt: string };
    return { ...row, createdAt: dateFromJson(row.createdAt) };
  },
});

/** The name of the workspace `id` (an SQL expression of its id), as an SQL subquery: for a read that shows it with its own rows. */
export const workspaceNameSql = (id: string) => `(SELECT w.name FROM "Workspace" AS w WHERE w.id = ${id})`;

/** Workspace names by id, one query for any number (inside the caller's transaction when given). */
export async function workspaceNames(ids: string[], client?: DbOrTx): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await (client ?? (await db())).workspace.findMany({
    where: { id: { in: unique } },
    select: { id: true, name: true },
  });
  return new Map(rows.map((row) => [row.id, row.name]));
}

/**
 * Workspace writers: project writers who created the workspace (an agent counts as its owner), and
 * project admins; a workspace key writes to its own workspace (its creator's write access is
 * checked by the access resolver).
 */
export function canWriteWorkspace(
  identity: Identity,
  role: ProjectRole,
  workspace: Pick<Workspace, "id" | "createdById">,
): boolean {
  if (identity.kind === "workspace-key") return workspace.id === identity.workspaceId;
  if (!atLeast(role, "write")) return false;
  const isCreator = workspace.createdById !== null && workspace.createdById === actingUserId(identity);
  return isCreator || atLeast(role, "admin");
}

/**
 * The workspace a commit may be written to. Every access failure is 404 (nothing about the
 * project or workspace leaks): the caller needs project write access and to be the workspace's
 * creator (an agent counts as its owner) or a project admin.
 */
async function writableWorkspace(identity: Identity, projectId: string, name: string) {
  const { project, alongside: workspace } = await findProjectAlongside({ id: projectId }, workspaceAlongside(name));
  if (!project) throw notFound();
  const role = await projectRole(identity, project);
  if (workspace && role !== "none") assertWorkspaceScope(identity, { id: workspace.id });
  if (!workspace || !canWriteWorkspace(identity, role, workspace)) throw notFound();
  assertNotDeleting(project);
  assertNotImporting(project);
  return { project, workspace };
}

/** Writes a file map (null deletes) as one commit on the workspace's branch; concurrent commits all land. */
export async function commitToWorkspace(
  identity: Identity,
  input: { projectId: string; name: string; files: FileMap; message: string },
) {
  const { project, workspace } = await writableWorkspace(identity, input.projectId, input.name);
  assertFileMapWithinLimits(input.files);
  const repo = openWorkspaceRepo(project.id, workspace.name);
  const branch = repoExists(repo) ? headBranch(repo) : null;
  if (!branch) throw internal(`Workspace ${workspace.name} has no repository`, "GIT_ERROR");
  const { author, committer } = commitAuthorship(identity);
  // The same signal as a git push to the workspace (promoted changes follow it), recorded in the
  // transaction that moves the branch, with the branch-move subscribers' hooks.
  const actor = actorOf(identity);
  const recordMove: RecordMove = (tx, move) =>
    recordEvent(tx, {
      projectId: project.id,
      kind: "push",
      actor,
      data: { ref: branchRef(branch), before: move.parent, after: move.oid, workspace: workspace.name },
    });
  const move = { project, workspace: workspace.name, actor, cause: "commit" as const, changeIds: [] };
  const { oid, parent } = await commitToBranch(repo, branch, {
    files: input.files,
    message: input.message,
    author,
    committer,
    recordMove,
    move,
  });
  return {
    workspace: workspace.name,
    projectId: project.id,
    path: projectPath(project),
    branch,
    commit: oid,
    parent,
    files: Object.keys(input.files).length,
  };
}
