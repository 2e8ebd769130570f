import type { Organization, OrgRole } from "@/server/generated/prisma/client";
import { atLeast, type AccessLevel } from "@/server/access";
import { db, type DbOrTx, type Tx } from "@/server/db";
import { actingUserId, type Identity } from "@/server/auth";
import { forbidden, notFound } from "@/server/errors";

export interface OrgAccess {
  org: Organization;
  role: OrgRole;
}

/** The caller's membership of an organization (an agent acts with its owner's), or null. */
export async function orgMembership(identity: Identity, org: Organization, client?: DbOrTx): Promise<OrgRole | null> {
  const userId = actingUserId(identity);
  if (!userId) return null;
  const prisma = client ?? (await db());
  const member = await prisma.orgMember.findUnique({
    where: { orgId_userId: { orgId: org.id, userId } },
    select: { role: true },
  });
  return member?.role ?? null;
}

/**
 * Loads an organization for a member: a non-member gets 404 (an organization's existence does not
 * leak), a member below `need` gets 403.
 */
export async function requireOrg(
  identity: Identity,
  slug: string,
  need: AccessLevel = "read",
  client?: DbOrTx,
): Promise<OrgAccess> {
  const prisma = client ?? (await db());
  const org = await prisma.organization.findUnique({ where: { slug } });
  const role = org ? await orgMembership(identity, org, prisma) : null;
  if (!org || !role) throw notFound(`Organization ${slug} not found`);
  if (!atLeast(role, need)) throw forbidden(`This needs ${need} access to the organization`);
  return { org, role };
}

/**
 * Serialises membership changes of one organization: the last-owner rule holds under concurrent
 * demotions (two owners demoting each other must not leave none), and a team never gains a member
 * the organization is losing at the same moment.
 */
export async function lockOrg(tx: Tx, orgId: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "Organization" WHERE "id" = ${orgId}::uuid FOR UPDATE`;
}
