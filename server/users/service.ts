import { db } from "@/server/db";
import {
  createApiToken,
  forgetUserCredentials,
  mintToken,
  revokeApiToken,
  USER_TOKEN_PREFIX,
  type NewToken,
  type UserIdentity,
} from "@/server/auth";
import { writeAudit } from "@/server/audit";
import { conflict, unauthenticated } from "@/server/errors";

/**
 * GET /api/users/me: the resolved identity, with the two fields a person sets (read from the row:
 * the identity is cached per credential and would show a changed display name late).
 */
export async function profileOf(identity: UserIdentity) {
  const row = await (
    await db()
  ).user.findUnique({ where: { id: identity.userId }, select: { displayName: true, avatarUrl: true } });
  return {
    id: identity.userId,
    username: identity.username,
    displayName: row?.displayName ?? null,
    avatarUrl: row?.avatarUrl ?? null,
    isAdmin: identity.isAdmin,
    credential: { kind: identity.via, scope: identity.scope },
  };
}

/** PATCH /api/users/me: sets (or with null clears) the caller's display name. */
export async function updateProfile(identity: UserIdentity, input: { displayName?: string | null }) {
  if (input.displayName !== undefined) {
    const { count } = await (
      await db()
    ).user.updateMany({ where: { id: identity.userId, deletingAt: null }, data: { displayName: input.displayName } });
    if (count === 0) throw unauthenticated("Account not found");
  }
  return profileOf(identity);
}

async function currentUser(userId: string) {
  const user = await (await db()).user.findUnique({ where: { id: userId } });
  if (!user || user.deletingAt) throw unauthenticated("Account not found");
  return user;
}

/**
 * Mints a new legacy credential (the old one stops working at once). Compare-and-swap on the
 * stored hash: of two concurrent rotations one wins and the other gets 409.
 */
export async function rotateLegacyCredential(userId: string) {
  const user = await currentUser(userId);
  if (user.legacyTokenDisabledAt) throw conflict("The legacy credential was disabled permanently", "CONFLICT");
  const minted = mintToken(USER_TOKEN_PREFIX);
  const { count } = await (
    await db()
  ).user.updateMany({
    where: { id: userId, deletingAt: null, legacyTokenDisabledAt: null, legacyTokenHash: user.legacyTokenHash },
    data: { legacyTokenHash: minted.hash, legacyTokenPrefix: minted.displayPrefix },
  });
  forgetUserCredentials(userId);
  if (count === 0) throw conflict("The legacy credential changed meanwhile; try again", "CONFLICT");
  return { token: minted.plaintext, prefix: minted.displayPrefix };
}

/** Disables the legacy credential for good; named tokens are unaffected. Idempotent. */
export async function disableLegacyCredential(userId: string) {
  await currentUser(userId);
  const prisma = await db();
  await prisma.user.updateMany({
    where: { id: userId, legacyTokenDisabledAt: null },
    data: { legacyTokenDisabledAt: new Date() },
  });
  forgetUserCredentials(userId);
  const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
  return {
    disabled: true as const,
    disabledAt: user.legacyTokenDisabledAt!.toISOString(),
    prefix: user.legacyTokenPrefix,
  };
}

/** Creates a named API token for the caller, audited `token.created` in the same transaction. */
export async function createNamedToken(identity: UserIdentity, input: NewToken) {
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const created = await createApiToken(identity.userId, "token", input, tx);
    await writeAudit(tx, {
      action: "token.created",
      identity,
      target: `token:${created.token.id}`,
      data: { name: created.token.name, scope: created.token.scope, prefix: created.token.prefix },
    });
    return created;
  });
}

/** Revokes one of the caller's tokens or grants, audited `token.revoked` when this call revoked it. */
export function revokeToken(identity: UserIdentity, tokenId: string) {
  return revokeApiToken(identity.userId, tokenId, (tx, token) =>
    writeAudit(tx, {
      action: "token.revoked",
      identity,
      target: `token:${token.id}`,
      data: { kind: token.kind, name: token.name, prefix: token.prefix },
    }),
  );
}
