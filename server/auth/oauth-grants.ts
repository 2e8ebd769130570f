import { db, type DbOrTx } from "@/server/db";
import { OAUTH_TOKEN_PREFIX, hashToken, mintToken } from "./tokens";
import { forgetUserCredentials } from "./credential-invalidation";

/**
 * OAuth grants (ApiToken rows of kind oauth) as the authorization server drives them: one row per
 * authorization of a client, whose access token is replaced in place on each refresh.
 */

/** A live grant's id and owner for a presented access token (revocation endpoint), else undefined. */
export async function oauthGrantByToken(
  plaintext: string,
  client?: DbOrTx,
): Promise<{ id: string; userId: string } | undefined> {
  if (!plaintext.startsWith(OAUTH_TOKEN_PREFIX)) return undefined;
  const prisma = client ?? (await db());
  const row = await prisma.apiToken.findUnique({
    where: { tokenHash: hashToken(plaintext) },
    select: { id: true, userId: true, kind: true },
  });
  return row?.kind === "oauth" ? { id: row.id, userId: row.userId } : undefined;
}

/**
 * Replaces a live grant's access token (refresh). Undefined when the grant is revoked or its user
 * is being deleted. The caller's transaction holds the refresh token's lock, and calls
 * forgetUserCredentials(userId) after it commits so the old access token stops working at once.
 */
export async function rotateOAuthGrant(
  tx: DbOrTx,
  grantId: string,
  expiresAt: Date,
): Promise<{ plaintext: string; userId: string; scope: string } | undefined> {
  const minted = mintToken(OAUTH_TOKEN_PREFIX);
  const updated = await tx.apiToken.updateMany({
    where: { id: grantId, kind: "oauth", revokedAt: null, user: { deletingAt: null } },
    data: { tokenHash: minted.hash, prefix: minted.displayPrefix, expiresAt },
  });
  if (updated.count === 0) return undefined;
  const row = await tx.apiToken.findUniqueOrThrow({ where: { id: grantId }, select: { userId: true, scope: true } });
  return { plaintext: minted.plaintext, userId: row.userId, scope: row.scope };
}

/** Revokes a grant whoever holds it (token reuse detected, or RFC 7009 revocation); harmless when repeated. */
export async function revokeOAuthGrant(grantId: string, client?: DbOrTx): Promise<void> {
  const prisma = client ?? (await db());
  const row = await prisma.apiToken.findFirst({ where: { id: grantId, kind: "oauth" }, select: { userId: true } });
  if (!row) return;
  await prisma.apiToken.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: new Date() } });
  forgetUserCredentials(row.userId);
}
