import type { Project } from "@/server/generated/prisma/client";
import { db, type DbOrTx } from "@/server/db";
import { actingUserId, type Identity } from "@/server/auth";
import { conflict, forbidden, notFound } from "@/server/errors";

export type ProjectRole = "none" | "read" | "write" | "admin" | "owner";
const RANK: Record<ProjectRole, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 };

export const atLeast = (role: ProjectRole, needed: ProjectRole) => RANK[role] >= RANK[needed];

/**
 * The caller's role on a project: owner for the owning user (an agent inherits its owner's
 * access), organization and collaborator roles, read for anyone on a public project.
 */
export async function projectRole(identity: Identity, project: Project, client?: DbOrTx): Promise<ProjectRole> {
  const prisma = client ?? (await db());
  const userId = actingUserId(identity);
  let role: ProjectRole = project.visibility === "public" ? "read" : "none";
  if (!userId) return role;
  if (project.ownerUserId === userId) return "owner";
  const raise = (candidate: ProjectRole) => {
    if (RANK[candidate] > RANK[role]) role = candidate;
  };
  if (project.ownerOrgId) {
    const member = await prisma.orgMember.findUnique({ where: { orgId_userId: { orgId: project.ownerOrgId, userId } } });
    if (member) raise(member.role);
  }
  const collaborator = await prisma.projectCollaborator.findUnique({ where: { projectId_userId: { projectId: project.id, userId } } });
  if (collaborator) raise(collaborator.role);
  return role;
}

export interface ProjectAccess {
  project: Project;
  role: ProjectRole;
}

/** `{name}` in change routes: `@ns/slug`, `ns/slug` or a project id. */
export async function findProject(ref: { namespace: string; slug: string } | { id: string }, client?: DbOrTx): Promise<Project | null> {
  const prisma = client ?? (await db());
  if ("id" in ref) {
    if (!/^[0-9a-f-]{36}$/i.test(ref.id)) return null;
    return prisma.project.findUnique({ where: { id: ref.id } });
  }
  return prisma.project.findUnique({ where: { namespace_slug: { namespace: ref.namespace, slug: ref.slug } } });
}

/**
 * Loads a project for the caller. Anyone who cannot read it gets 404 (indistinguishable from a
 * missing project). Below `need`, the caller gets `deniedStatus` (403 by default, 404 where the spec
 * says non-writers must not learn more).
 */
export async function requireProject(
  identity: Identity,
  ref: { namespace: string; slug: string } | { id: string },
  need: ProjectRole = "read",
  options: { deniedStatus?: 403 | 404; client?: DbOrTx } = {},
): Promise<ProjectAccess> {
  const project = await findProject(ref, options.client);
  if (!project) throw notFound();
  const role = await projectRole(identity, project, options.client);
  if (role === "none") throw notFound();
  if (!atLeast(role, need)) {
    throw options.deniedStatus === 404 ? notFound() : forbidden(`This needs ${need} access to the project`);
  }
  return { project, role };
}

/** Writes that race a deletion are refused. */
export function assertNotDeleting(project: Project): void {
  if (project.deletingAt) throw conflict("The project is being deleted", "TARGET_DELETING");
}

export const projectPath = (project: { namespace: string; slug: string }) => `@${project.namespace}/${project.slug}`;
