import type { CollaboratorRole } from "@/server/generated/prisma/client";
import { forgetGrants, type GrantedLevel } from "@/server/access";
import { db, type DbOrTx } from "@/server/db";
import { writeAudit } from "@/server/audit";
import type { UserIdentity } from "@/server/auth";

/** What an organization gives a user on one of its projects: the member's role and each team grant. */
export async function orgGrantsOn(
  input: { orgId: string; orgSlug: string; projectId: string; userId: string },
  client?: DbOrTx,
) {
  const prisma = client ?? (await db());
  const [member, teamGrants] = await Promise.all([
    prisma.orgMember.findUnique({
      where: { orgId_userId: { orgId: input.orgId, userId: input.userId } },
      select: { role: true },
    }),
    prisma.teamProject.findMany({
      where: { projectId: input.projectId, team: { orgId: input.orgId, members: { some: { userId: input.userId } } } },
      select: { permission: true, team: { select: { slug: true } } },
      orderBy: { team: { slug: "asc" } },
    }),
  ]);
  const grants: Array<{ via: "org" | "team"; name: string; permission: GrantedLevel }> = [];
  if (member) grants.push({ via: "org", name: input.orgSlug, permission: member.role });
  // A team grant needs a current organization member (a removed member's team rows go with them).
  if (member)
    for (const grant of teamGrants) grants.push({ via: "team", name: grant.team.slug, permission: grant.permission });
  return grants;
}

/** A team's project grants, as project ids. */
export async function teamProjectGrants(teamId: string) {
  const prisma = await db();
  return prisma.teamProject.findMany({
    where: { teamId },
    select: { projectId: true, permission: true },
    orderBy: { createdAt: "asc" },
  });
}

export async function grantTeamProject(
  identity: UserIdentity,
  input: { org: { slug: string }; team: { id: string; slug: string }; projectId: string; permission: CollaboratorRole },
) {
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    await tx.teamProject.upsert({
      where: { teamId_projectId: { teamId: input.team.id, projectId: input.projectId } },
      create: { teamId: input.team.id, projectId: input.projectId, permission: input.permission },
      update: { permission: input.permission },
    });
    await writeAudit(tx, {
      action: "org.team.project.granted",
      identity,
      projectId: input.projectId,
      target: `org:${input.org.slug}`,
      data: { team: input.team.slug, permission: input.permission },
    });
  });
  await forgetGrants({ projectIds: [input.projectId] });
}

/** Removes a team's grant; false when it had none. */
export async function revokeTeamProject(
  identity: UserIdentity,
  input: { org: { slug: string }; team: { id: string; slug: string }; projectId: string },
): Promise<boolean> {
  const prisma = await db();
  const revoked = await prisma.$transaction(async (tx) => {
    const removed = await tx.teamProject.deleteMany({ where: { teamId: input.team.id, projectId: input.projectId } });
    if (removed.count === 0) return false;
    await writeAudit(tx, {
      action: "org.team.project.revoked",
      identity,
      projectId: input.projectId,
      target: `org:${input.org.slug}`,
      data: { team: input.team.slug },
    });
    return true;
  });
  await forgetGrants({ projectIds: [input.projectId] });
  return revoked;
}

/** The organizations a user belongs to and the projects their teams are granted (for project lists). */
export async function orgReachOf(userId: string) {
  const prisma = await db();
  const [memberships, teamGrants] = await Promise.all([
    prisma.orgMember.findMany({ where: { userId }, select: { orgId: true } }),
    prisma.teamProject.findMany({ where: { team: { members: { some: { userId } } } }, select: { projectId: true } }),
  ]);
  return { orgIds: memberships.map((m) => m.orgId), teamProjectIds: teamGrants.map((g) => g.projectId) };
}
