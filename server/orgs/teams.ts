import { forgetGrants } from "@/server/access";
import { db } from "@/server/db";
import { findUserByUsername, publicUser, type Identity, type UserIdentity } from "@/server/auth";
import { writeAudit } from "@/server/audit";
import { conflict, notFound, unprocessable } from "@/server/errors";
import { lockOrg, requireOrg } from "./membership";

const teamView = (team: { id: string; slug: string; name: string; description: string; createdAt: Date }) => ({
  id: team.id,
  slug: team.slug,
  name: team.name,
  description: team.description,
  createdAt: team.createdAt.toISOString(),
});

/**
 * A team of an organization the caller is a member of, checked at `need` on the organization
 * (non-members 404, members below `need` 403, an unknown team 404).
 */
export async function requireTeam(
  identity: Identity,
  input: { org: string; team: string },
  need: "read" | "admin" = "read",
) {
  const { org } = await requireOrg(identity, input.org, need);
  const prisma = await db();
  const team = await prisma.team.findUnique({ where: { orgId_slug: { orgId: org.id, slug: input.team } } });
  if (!team) throw notFound(`Team ${input.team} not found in ${org.slug}`);
  return { org, team };
}

export async function listTeams(identity: Identity, orgSlug: string) {
  const { org } = await requireOrg(identity, orgSlug);
  const prisma = await db();
  return (await prisma.team.findMany({ where: { orgId: org.id }, orderBy: { slug: "asc" } })).map(teamView);
}

export async function createTeam(
  identity: UserIdentity,
  input: { org: string; slug: string; name?: string; description?: string },
) {
  const { org } = await requireOrg(identity, input.org, "admin");
  const prisma = await db();
  const team = await prisma
    .$transaction(async (tx) => {
      const created = await tx.team.create({
        data: { orgId: org.id, slug: input.slug, name: input.name ?? input.slug, description: input.description ?? "" },
      });
      await writeAudit(tx, {
        action: "org.team.created",
        identity,
        target: `org:${org.slug}`,
        data: { team: created.slug },
      });
      return created;
    })
    .catch((error: { code?: string }) => {
      if (error.code === "P2002") throw conflict(`Team ${input.slug} already exists in ${org.slug}`, "CONFLICT");
      throw error;
    });
  return teamView(team);
}

export async function deleteTeam(identity: UserIdentity, input: { org: string; team: string }) {
  const { org, team } = await requireTeam(identity, input, "admin");
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    await tx.team.delete({ where: { id: team.id } });
    await writeAudit(tx, {
      action: "org.team.deleted",
      identity,
      target: `org:${org.slug}`,
      data: { team: team.slug },
    });
  });
  await forgetGrants({ orgIds: [org.id] });
}

export async function listTeamMembers(identity: Identity, input: { org: string; team: string }) {
  const { team } = await requireTeam(identity, input);
  const prisma = await db();
  const members = await prisma.teamMember.findMany({
    where: { teamId: team.id },
    include: { user: true },
    orderBy: { createdAt: "asc" },
  });
  return members.map((member) => ({ user: publicUser(member.user) }));
}

/** Adds an organization member to a team (422 NOT_ORG_MEMBER for anyone else). */
export async function addTeamMember(identity: UserIdentity, input: { org: string; team: string; username: string }) {
  const { org, team } = await requireTeam(identity, input, "admin");
  const prisma = await db();
  const user = await findUserByUsername(input.username);
  if (!user) throw notFound(`User ${input.username} not found`);
  await prisma.$transaction(async (tx) => {
    await lockOrg(tx, org.id);
    const member = await tx.orgMember.findUnique({ where: { orgId_userId: { orgId: org.id, userId: user.id } } });
    if (!member) throw unprocessable(`${user.username} is not a member of ${org.slug}`, "NOT_ORG_MEMBER");
    const existing = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId: team.id, userId: user.id } } });
    if (existing) return;
    await tx.teamMember.create({ data: { teamId: team.id, userId: user.id } });
    await writeAudit(tx, {
      action: "org.team.member.added",
      identity,
      target: `org:${org.slug}`,
      data: { team: team.slug, userId: user.id, username: user.username },
    });
  });
  await forgetGrants();
  return { user: publicUser(user) };
}

export async function removeTeamMember(identity: UserIdentity, input: { org: string; team: string; username: string }) {
  const { org, team } = await requireTeam(identity, input, "admin");
  const prisma = await db();
  const user = await findUserByUsername(input.username);
  if (!user) throw notFound(`${input.username} is not in team ${team.slug}`);
  await prisma.$transaction(async (tx) => {
    const removed = await tx.teamMember.deleteMany({ where: { teamId: team.id, userId: user.id } });
    if (removed.count === 0) throw notFound(`${input.username} is not in team ${team.slug}`);
    await writeAudit(tx, {
      action: "org.team.member.removed",
      identity,
      target: `org:${org.slug}`,
      data: { team: team.slug, userId: user.id, username: user.username },
    });
  });
  await forgetGrants({ userIds: [user.id] });
}
