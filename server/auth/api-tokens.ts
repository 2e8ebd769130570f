import { db, type DbOrTx, type Tx } from "@/server/db";
import { conflict, notFound } from "@/server/errors";
import { ACTIVE_TOKENS_MAX } from "@/server/limits";
import { OAUTH_TOKEN_PREFIX, USER_TOKEN_PREFIX, mintToken } from "./tokens";
import { forgetUserCredentials } from "./credential-invalidation";
import { isUuid } from "./ids";

import type { ApiToken } from "@/server/generated/prisma/client";
import type { TokenKind, TokenScope } from "@/server/generated/prisma/enums";

/** Rows of ApiToken: named API tokens (`token`) and MCP/CLI OAuth grants (`oauth`). */
export type { TokenKind };

export interface NewToken {
  name: string;
  scope: TokenScope;
  expiresInDays?: number;
  /** An exact expiry instead (OAuth access tokens live an hour). */
  expiresAt?: Date;
}

type TokenRow = Pick<
  ApiToken,
  "id" | "kind" | "name" | "scope" | "prefix" | "expiresAt" | "lastUsedAt" | "revokedAt" | "createdAt"
>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The public view of a token: never its hash or plaintext. */
export function tokenView(row: TokenRow, now = new Date()) {
  const status: "active" | "expired" | "revoked" = row.revokedAt
    ? "revoked"
    : row.expiresAt && row.expiresAt <= now
      ? "expired"
      : "active";
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    scope: row.scope,
    prefix: row.prefix,
    status,
    expiresAt: iso(row.expiresAt),
    lastUsedAt: iso(row.lastUsedAt),
    revokedAt: iso(row.revokedAt),
    createdAt: row.createdAt.toISOString(),
  };
}

/** Serializes credential writes of one user (the active-token limit is checked under this lock). */
export async function lockUser(tx: Tx, userId: string): Promise<void> {
  const rows = await tx.$queryRaw<
    Array<{ id: string }>
  >`SELECT id FROM "User" WHERE id = ${userId}::uuid AND "deletingAt" IS NULL FOR UPDATE`;
  if (rows.length === 0) throw notFound("User not found");
}

const activeWhere = (userId: string, kind: TokenKind, now: Date) => ({
  userId,
  kind,
  revokedAt: null,
  OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
});

/**
 * Mints a token or grant for a user; the plaintext is returned once. Named tokens are limited to
 * ACTIVE_TOKENS_MAX active ones (revoked and expired rows do not count).
 */
export async function createApiToken(userId: string, kind: TokenKind, input: NewToken, client?: Tx) {
  const minted = mintToken(kind === "oauth" ? OAUTH_TOKEN_PREFIX : USER_TOKEN_PREFIX);
  const now = new Date();
  const create = async (tx: Tx) => {
    await lockUser(tx, userId);
    if (kind === "token") {
      const active = await tx.apiToken.count({ where: activeWhere(userId, kind, now) });
      if (active >= ACTIVE_TOKENS_MAX) {
        throw conflict(
          `At most ${ACTIVE_TOKENS_MAX} active tokens per account; revoke one first`,
          "TOKEN_LIMIT_REACHED",
        );
      }
    }
    return tx.apiToken.create({
      data: {
        userId,
        kind,
        name: input.name,
        scope: input.scope,
        tokenHash: minted.hash,
        prefix: minted.displayPrefix,
        expiresAt:
          input.expiresAt ?? (input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null),
      },
    });
  };
  const row = client ? await create(client) : await (await db()).$transaction(create);
  return { token: tokenView(row), plaintext: minted.plaintext };
}

export async function listApiTokens(userId: string, client?: DbOrTx) {
  const prisma = client ?? (await db());
  const rows = await prisma.apiToken.findMany({ where: { userId }, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
  const now = new Date();
  return rows.map((row) => tokenView(row, now));
}

/**
 * Revokes one of the user's tokens or grants; the row is kept. Repeating it is harmless.
 * `onRevoked` runs in the revoking transaction, only when this call revoked it (the caller audits).
 */
export async function revokeApiToken(
  userId: string,
  tokenId: string,
  onRevoked?: (tx: Tx, token: ReturnType<typeof tokenView>) => Promise<void>,
) {
  if (!isUuid(tokenId)) throw notFound("Token not found");
  const prisma = await db();
  const row = await prisma.$transaction(async (tx) => {
    const existing = await tx.apiToken.findFirst({ where: { id: tokenId, userId } });
    if (!existing) throw notFound("Token not found");
    const { count } = await tx.apiToken.updateMany({
      where: { id: tokenId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const revoked = await tx.apiToken.findUniqueOrThrow({ where: { id: tokenId } });
    if (count === 1 && onRevoked) await onRevoked(tx, tokenView(revoked));
    return revoked;
  });
  forgetUserCredentials(userId);
  return tokenView(row);
}
