import crypto from "node:crypto";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import {
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  UnsupportedGrantTypeError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import {
  createApiToken,
  forgetUserCredentials,
  hashToken,
  mintToken,
  oauthGrantByToken,
  OAUTH_TOKEN_PREFIX,
  revokeOAuthGrant,
  rotateOAuthGrant,
} from "@/server/auth";
import { db, type Tx } from "@/server/db";
import { OAUTH_ACCESS_TOKEN_TTL_SECONDS, OAUTH_REFRESH_TOKEN_TTL_DAYS } from "@/server/limits";
import { findClient, type RegisteredClient } from "./clients";

type Params = Record<string, unknown>;

/** Refresh tokens look like grants to the secret scanner (svc_oauth_...), so a leaked one is caught. */
const REFRESH_TOKEN_PREFIX = `${OAUTH_TOKEN_PREFIX}refresh_`;
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const accessExpiry = () => new Date(Date.now() + OAUTH_ACCESS_TOKEN_TTL_SECONDS * 1000);
const refreshExpiry = () => new Date(Date.now() + OAUTH_REFRESH_TOKEN_TTL_DAYS * 86_400_000);
const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge, compared in constant time. */
export function verifierMatches(verifier: string | undefined, challenge: string): boolean {
  if (!verifier || !CODE_VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(crypto.createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && crypto.timingSafeEqual(computed, expected);
}

async function clientOf(params: Params): Promise<RegisteredClient> {
  const client = await findClient(params.client_id);
  if (!client) throw new InvalidClientError("Unknown client_id");
  return client;
}

async function newRefreshToken(tx: Tx, grantId: string, clientId: string): Promise<string> {
  const minted = mintToken(REFRESH_TOKEN_PREFIX);
  await tx.oAuthRefreshToken.create({
    data: { tokenHash: minted.hash, grantId, clientId, expiresAt: refreshExpiry() },
  });
  return minted.plaintext;
}

const tokenResponse = (accessToken: string, refreshToken: string, scope: string): OAuthTokens => ({
  access_token: accessToken,
  token_type: "Bearer",
  expires_in: OAUTH_ACCESS_TOKEN_TTL_SECONDS,
  refresh_token: refreshToken,
  scope,
});

type Outcome = { tokens: OAuthTokens; userId?: string } | { refused: string; revokeGrant?: string | null };

async function settle(outcome: Outcome): Promise<OAuthTokens> {
  if ("tokens" in outcome) {
    if (outcome.userId) forgetUserCredentials(outcome.userId);
    return outcome.tokens;
  }
  if (outcome.revokeGrant) await revokeOAuthGrant(outcome.revokeGrant);
  throw new InvalidGrantError(outcome.refused);
}

/** authorization_code: one exchange per code, PKCE S256, same client and redirect URI as the request. */
async function exchangeCode(params: Params): Promise<OAuthTokens> {
  const client = await clientOf(params);
  const code = text(params.code);
  if (!code) throw new InvalidRequestError("code is required");
  const prisma = await db();
  const outcome = await prisma.$transaction(async (tx): Promise<Outcome> => {
    // The code row is locked so two exchanges of one code are serialized: the second sees usedAt
    // (and the grant the first issued, which it revokes), never a second grant.
    const [row] = await tx.$queryRaw<
      Array<{ id: string }>
    >`SELECT id FROM "OAuthCode" WHERE "codeHash" = ${hashToken(code)} FOR UPDATE`;
    if (!row) return { refused: "Unknown authorization code" };
    const stored = await tx.oAuthCode.findUniqueOrThrow({ where: { id: row.id } });
    if (stored.usedAt)
      return {
        refused: "Authorization code already used; the grant it issued is revoked",
        revokeGrant: stored.grantId,
      };
    // The code is spent by this attempt whatever follows: a wrong verifier cannot be retried.
    await tx.oAuthCode.update({ where: { id: stored.id }, data: { usedAt: new Date() } });
    if (stored.expiresAt <= new Date()) return { refused: "Authorization code expired" };
    if (stored.clientId !== client.id) return { refused: "Authorization code was issued to another client" };
    if (text(params.redirect_uri) !== stored.redirectUri)
      return { refused: "redirect_uri does not match the authorization request" };
    if (!verifierMatches(text(params.code_verifier), stored.codeChallenge))
      return { refused: "code_verifier does not match the code challenge" };
    const grant = await createApiToken(
      stored.userId,
      "oauth",
      { name: `MCP: ${client.name}`, scope: stored.scope, expiresAt: accessExpiry() },
      tx,
    );
    await tx.oAuthCode.update({ where: { id: stored.id }, data: { grantId: grant.token.id } });
    const refresh = await newRefreshToken(tx, grant.token.id, client.id);
    return { tokens: tokenResponse(grant.plaintext, refresh, stored.scope) };
  });
  return settle(outcome);
}

/** refresh_token: rotates both tokens; presenting a used refresh token revokes the grant (the family). */
async function refresh(params: Params): Promise<OAuthTokens> {
  const client = await clientOf(params);
  const token = text(params.refresh_token);
  if (!token) throw new InvalidRequestError("refresh_token is required");
  const prisma = await db();
  const outcome = await prisma.$transaction(async (tx): Promise<Outcome> => {
    // Locked so two refreshes with one token are serialized: exactly one rotates, the other is a reuse.
    const [row] = await tx.$queryRaw<
      Array<{ id: string }>
    >`SELECT id FROM "OAuthRefreshToken" WHERE "tokenHash" = ${hashToken(token)} FOR UPDATE`;
    if (!row) return { refused: "Unknown refresh token" };
    const stored = await tx.oAuthRefreshToken.findUniqueOrThrow({ where: { id: row.id } });
    if (stored.clientId !== client.id) return { refused: "Refresh token was issued to another client" };
    if (stored.usedAt)
      return { refused: "Refresh token already used; the grant is revoked", revokeGrant: stored.grantId };
    if (stored.expiresAt <= new Date()) return { refused: "Refresh token expired" };
    await tx.oAuthRefreshToken.update({ where: { id: stored.id }, data: { usedAt: new Date() } });
    const rotated = await rotateOAuthGrant(tx, stored.grantId, accessExpiry());
    if (!rotated) return { refused: "The grant was revoked" };
    const next = await newRefreshToken(tx, stored.grantId, client.id);
    return { tokens: tokenResponse(rotated.plaintext, next, rotated.scope), userId: rotated.userId };
  });
  return settle(outcome);
}

/** The token endpoint's grant types. */
export function exchangeToken(params: Params): Promise<OAuthTokens> {
  switch (params.grant_type) {
    case "authorization_code":
      return exchangeCode(params);
    case "refresh_token":
      return refresh(params);
    default:
      throw new UnsupportedGrantTypeError("grant_type must be authorization_code or refresh_token");
  }
}

/**
 * RFC 7009: an access or refresh token of this client revokes its grant (access and refresh tokens
 * alike). Unknown tokens, and tokens of other clients, are answered the same way and left alone.
 */
export async function revokeToken(params: Params): Promise<void> {
  const client = await clientOf(params);
  const token = text(params.token);
  if (!token) throw new InvalidRequestError("token is required");
  const prisma = await db();
  const refreshRow = await prisma.oAuthRefreshToken.findUnique({ where: { tokenHash: hashToken(token) } });
  const grantId = refreshRow
    ? refreshRow.clientId === client.id && refreshRow.grantId
    : await grantOfClient(token, client.id);
  if (grantId) await revokeOAuthGrant(grantId);
}

async function grantOfClient(accessToken: string, clientId: string): Promise<string | undefined> {
  const grant = await oauthGrantByToken(accessToken);
  if (!grant) return undefined;
  const issuedToClient = await (
    await db()
  ).oAuthRefreshToken.findFirst({ where: { grantId: grant.id, clientId }, select: { id: true } });
  return issuedToClient ? grant.id : undefined;
}
