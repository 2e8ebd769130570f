import type { CollaboratorRole } from "@/server/generated/prisma/client";
import { forgetGrants, highest } from "@/server/access";
import {
  actingUserId,
  findUserById,
  findUserByUsername,
  publicUser,
  type Identity,
  type UserIdentity,
} from "@/server/auth";
import { writeAudit } from "@/server/audit";
import { db } from "@/server/db";
import { forbidden, notFound } from "@/server/errors";
import { grantTeamProject, requireTeam, revokeTeamProject, teamProjectGrants } from "@/server/orgs";
import { atLeast, findProject, projectGrants, projectPath, projectRole, requireProject } from "./access";

type ProjectRef = { namespace: string; slug: string };

export async function listCollaborators(identity: Identity, ref: ProjectRef) {
  const { project } = await requireProject(identity, ref, "admin");
  const prisma = await db();
  const rows = await prisma.projectCollaborator.findMany({
    where: { projectId: project.id },
    include: { user: true },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((row) => ({ user: publicUser(row.user), permission: row.role }));
}

/**
 * Who an issue can be assigned to, for the issue page's picker (readers may ask, as on GitHub):
 * the owning user and the collaborators who can write. Members of an owning organization are not
 * listed (their grants come from the organization's tables).
 */
export async function assignableUsers(identity: Identity, ref: ProjectRef) {
  const { project } = await requireProject(identity, ref, "read", { cachedRow: true });
  const prisma = await db();
  const [owner, rows] = await Promise.all([
    project.ownerUserId ? findUserById(project.ownerUserId) : null,
    prisma.projectCollaborator.findMany({
      where: { projectId: project.id, role: { in: ["write", "admin"] } },
      include: { user: true },
    }),
  ]);
  const users = [...(owner ? [owner] : []), ...rows.map((row) => row.user)].map(publicUser);
  return users.sort((a, b) => a.username.localeCompare(b.username));
}

/** Adds a collaborator or changes their permission (project admins). */
export async function putCollaborator(
  identity: UserIdentity,
  input: ProjectRef & { username: string; permission: CollaboratorRole },
) {
  const { project } = await requireProject(identity, input, "admin");
  const user = await findUserByUsername(input.username);
  if (!user) throw notFound(`User ${input.username} not found`);
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    const current = await tx.projectCollaborator.findUnique({
      where: { projectId_userId: { projectId: project.id, userId: user.id } },
    });
    await tx.projectCollaborator.upsert({
      where: { projectId_userId: { projectId: project.id, userId: user.id } },
      create: { projectId: project.id, userId: user.id, role: input.permission },
      update: { role: input.permission },
    });
    if (current?.role === input.permission) return;
    await writeAudit(tx, {
      action: current ? "project.collaborator.changed" : "project.collaborator.added",
      identity,
      projectId: project.id,
      target: `user:${user.id}`,
      data: {
        username: user.username,
        permission: input.permission,
        ...(current ? { previousPermission: current.role } : {}),
      },
    });
  });
  await forgetGrants({ userIds: [user.id] });
  return { user: publicUser(user), permission: input.permission };
}

export async function removeCollaborator(identity: UserIdentity, input: ProjectRef & { username: string }) {
  const { project } = await requireProject(identity, input, "admin");
  const user = await findUserByUsername(input.username);
  if (!user) throw notFound(`${input.username} is not a collaborator`);
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    const removed = await tx.projectCollaborator.deleteMany({ where: { projectId: project.id, userId: user.id } });
    if (removed.count === 0) throw notFound(`${input.username} is not a collaborator`);
    await writeAudit(tx, {
      action: "project.collaborator.removed",
      identity,
      projectId: project.id,
      target: `user:${user.id}`,
      data: { username: user.username },
    });
  });
  await forgetGrants({ userIds: [user.id] });
}

/**
 * A user's effective permission on a project and every grant behind it. Project admins may ask about
 * anyone; everyone else about themself (an agent about its owner). A caller who cannot read the
 * project gets 404.
 */
export async function explainPermission(identity: Identity, input: ProjectRef & { user?: string }) {
  const project = await findProject(input);
  if (!project) throw notFound();
  const callerRole = await projectRole(identity, project);
  if (callerRole === "none") throw notFound();
  const callerId = actingUserId(identity);
  const user = input.user ? await findUserByUsername(input.user) : callerId ? await findUserById(callerId) : null;
  if (!user) throw notFound(`User ${input.user} not found`);
  if (user.id !== callerId && !atLeast(callerRole, "admin"))
    throw forbidden("Only project admins ask about other users");
  const grants = await projectGrants(user.id, project);
  return { user, permission: highest(grants.map((grant) => grant.permission)), grants };
}

/** A project of the team's organization, or 404 (a project outside the organization is not found for it). */
async function orgProject(org: { id: string; slug: string }, slug: string) {
  const project = await findProject({ namespace: org.slug, slug });
  if (!project || project.ownerOrgId !== org.id) throw notFound(`Project ${slug} not found in ${org.slug}`);
  return project;
}

export async function listTeamProjects(identity: Identity, input: { org: string; team: string }) {
  const { team } = await requireTeam(identity, input);
  const grants = await teamProjectGrants(team.id);
  const prisma = await db();
  const projects = await prisma.project.findMany({ where: { id: { in: grants.map((g) => g.projectId) } } });
  const byId = new Map(projects.map((p) => [p.id, p]));
  return grants.flatMap((grant) => {
    const project = byId.get(grant.projectId);
    return project ? [{ path: projectPath(project), permission: grant.permission }] : [];
  });
}

export async function putTeamProject(
  identity: UserIdentity,
  input: { org: string; team: string; slug: string; permission: CollaboratorRole },
) {
  const { org, team } = await requireTeam(identity, input, "admin");
  const project = await orgProject(org, input.slug);
  await grantTeamProject(identity, { org, team, projectId: project.id, permission: input.permission });
  return { path: projectPath(project), permission: input.permission };
}

export async function removeTeamProject(identity: UserIdentity, input: { org: string; team: string; slug: string }) {
  const { org, team } = await requireTeam(identity, input, "admin");
  const project = await orgProject(org, input.slug);
  if (!(await revokeTeamProject(identity, { org, team, projectId: project.id })))
    throw notFound(`Team ${team.slug} has no grant on ${projectPath(project)}`);
  return { path: projectPath(project) };
}
