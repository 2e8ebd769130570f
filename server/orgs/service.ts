import type { OrgRole } from "@/server/generated/prisma/client";
import { ACCESS_LEVELS, forgetGrants } from "@/server/access";
import { db, type Tx } from "@/server/db";
import {
  actingUserId,
  findUserByUsername,
  isNamespaceTaken,
  publicUser,
  type Identity,
  type UserIdentity,
} from "@/server/auth";
import { writeAudit } from "@/server/audit";
import { conflict, forbidden, notFound } from "@/server/errors";
import { lockOrg, requireOrg } from "./membership";

const orgView = (org: { id: string; slug: string; name: string; createdAt: Date }) => ({
  id: org.id,
  slug: org.slug,
  name: org.name,
  createdAt: org.createdAt.toISOString(),
});

const memberView = (member: { user: { id: string; username: string }; role: OrgRole; createdAt: Date }) => ({
  user: publicUser(member.user),
  role: member.role,
  createdAt: member.createdAt.toISOString(),
});

/** Creates an organization; its creator is its first owner. */
export async function createOrg(identity: UserIdentity, input: { slug: string; name?: string }) {
  const prisma = await db();
  const org = await prisma
    .$transaction(async (tx) => {
      if (await isNamespaceTaken(input.slug, tx))
        throw conflict(`The namespace ${input.slug} is taken`, "NAMESPACE_TAKEN");
      const created = await tx.organization.create({ data: { slug: input.slug, name: input.name ?? input.slug } });
      await tx.orgMember.create({ data: { orgId: created.id, userId: identity.userId, role: "owner" } });
      await writeAudit(tx, { action: "org.created", identity, target: `org:${created.slug}` });
      return created;
    })
    .catch((error: { code?: string }) => {
      // Two creators racing for one slug: the unique index decides.
      if (error.code === "P2002") throw conflict(`The namespace ${input.slug} is taken`, "NAMESPACE_TAKEN");
      throw error;
    });
  await forgetGrants();
  return orgView(org);
}

/** The caller's organizations with the caller's role (an agent sees its owner's). */
export async function listOrgs(identity: Identity) {
  const prisma = await db();
  const userId = actingUserId(identity);
  if (!userId) return [];
  const memberships = await prisma.orgMember.findMany({
    where: { userId },
    include: { org: true },
    orderBy: { org: { slug: "asc" } },
  });
  return memberships.map((m) => ({ ...orgView(m.org), role: m.role }));
}

export async function getOrg(identity: Identity, slug: string) {
  const { org, role } = await requireOrg(identity, slug);
  return { ...orgView(org), role };
}

export async function listMembers(identity: Identity, slug: string) {
  const { org } = await requireOrg(identity, slug);
  const prisma = await db();
  const members = await prisma.orgMember.findMany({
    where: { orgId: org.id },
    include: { user: true },
    orderBy: { createdAt: "asc" },
  });
  return members.map(memberView);
}

async function assertAnotherOwner(tx: Tx, orgId: string, userId: string): Promise<void> {
  const others = await tx.orgMember.count({ where: { orgId, role: "owner", userId: { not: userId } } });
  if (others === 0) throw conflict("An organization keeps at least one owner", "LAST_OWNER");
}

/** Adds a member or changes a member's role. Admins manage members; only owners grant or take owner. */
export async function putMember(identity: UserIdentity, input: { org: string; username: string; role: OrgRole }) {
  const prisma = await db();
  const member = await prisma.$transaction(async (tx) => {
    const { org, role: callerRole } = await requireOrg(identity, input.org, "admin", tx);
    const user = await findUserByUsername(input.username, tx);
    if (!user) throw notFound(`User ${input.username} not found`);
    await lockOrg(tx, org.id);
    const current = await tx.orgMember.findUnique({ where: { orgId_userId: { orgId: org.id, userId: user.id } } });
    if ((input.role === "owner" || current?.role === "owner") && callerRole !== "owner")
      throw forbidden("Only owners grant or take owner");
    if (current?.role === "owner" && input.role !== "owner") await assertAnotherOwner(tx, org.id, user.id);
    const saved = await tx.orgMember.upsert({
      where: { orgId_userId: { orgId: org.id, userId: user.id } },
      create: { orgId: org.id, userId: user.id, role: input.role },
      update: { role: input.role },
      include: { user: true },
    });
    if (!current || current.role !== input.role) {
      await writeAudit(tx, {
        action: current ? "org.member.changed" : "org.member.added",
        identity,
        target: `org:${org.slug}`,
        data: {
          userId: user.id,
          username: user.username,
          role: input.role,
          ...(current ? { previousRole: current.role } : {}),
        },
      });
    }
    return saved;
  });
  await forgetGrants({ userIds: [member.userId] });
  return memberView(member);
}

/** Removes a member (admins, or the member themself) with their team memberships in the organization. */
export async function removeMember(identity: UserIdentity, input: { org: string; username: string }) {
  const prisma = await db();
  const userId = await prisma.$transaction(async (tx) => {
    const self = input.username === identity.username;
    const { org, role: callerRole } = await requireOrg(identity, input.org, self ? "read" : "admin", tx);
    const user = await findUserByUsername(input.username, tx);
    const current = user
      ? await tx.orgMember.findUnique({ where: { orgId_userId: { orgId: org.id, userId: user.id } } })
      : null;
    if (!user || !current) throw notFound(`${input.username} is not a member of ${org.slug}`);
    await lockOrg(tx, org.id);
    if (current.role === "owner") {
      if (callerRole !== "owner") throw forbidden("Only owners remove an owner");
      await assertAnotherOwner(tx, org.id, user.id);
    }
    await tx.teamMember.deleteMany({ where: { userId: user.id, team: { orgId: org.id } } });
    await tx.orgMember.delete({ where: { orgId_userId: { orgId: org.id, userId: user.id } } });
    await writeAudit(tx, {
      action: "org.member.removed",
      identity,
      target: `org:${org.slug}`,
      data: { userId: user.id, username: user.username, role: current.role },
    });
    return user.id;
  });
  await forgetGrants({ userIds: [userId] });
}

/**
 * Account deletion: each organization the departing user solely owns passes to the most senior
 * remaining member (admin before write before read, then the longest-standing). An organization
 * left with no other member is left as it is; its projects stay until an administrator removes them.
 */
export async function handOverSoleOwnership(userId: string): Promise<void> {
  const prisma = await db();
  const owned = await prisma.orgMember.findMany({ where: { userId, role: "owner" }, select: { orgId: true } });
  for (const { orgId } of owned) {
    await prisma.$transaction(async (tx) => {
      await lockOrg(tx, orgId);
      const others = await tx.orgMember.findMany({
        where: { orgId, userId: { not: userId } },
        orderBy: { createdAt: "asc" },
      });
      if (others.length === 0 || others.some((member) => member.role === "owner")) return;
      const heir = [...others].sort((a, b) => ACCESS_LEVELS.indexOf(b.role) - ACCESS_LEVELS.indexOf(a.role))[0];
      await tx.orgMember.update({ where: { orgId_userId: { orgId, userId: heir.userId } }, data: { role: "owner" } });
    });
  }
  await forgetGrants();
}
