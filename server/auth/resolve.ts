import { config } from "@/server/config";
import { db } from "@/server/db/client";
import { AppError, unauthorized } from "@/server/http/errors";
import { anonymous, type Identity } from "./identity";
import { AGENT_TOKEN_PREFIX, USER_TOKEN_PREFIX, credentialFromHeader, hashToken, sameHash } from "./tokens";
import { SESSION_COOKIE, readCookie } from "./session-cookie";

const sessionExpired = () => new AppError(401, "Session expired", "SESSION_EXPIRED");
const invalidToken = () => unauthorized("Invalid or expired token");

async function identityFromToken(token: string): Promise<Identity> {
  const prisma = await db();
  const hash = hashToken(token);
  if (token.startsWith(AGENT_TOKEN_PREFIX)) {
    const agent = await prisma.agent.findUnique({ where: { tokenHash: hash }, include: { owner: true } });
    if (!agent || agent.revokedAt || agent.owner.deletingAt || !sameHash(agent.tokenHash, hash)) throw invalidToken();
    return { kind: "agent", agentId: agent.id, ownerId: agent.ownerId, ownerUsername: agent.owner.username };
  }
  if (!token.startsWith(USER_TOKEN_PREFIX)) throw invalidToken();
  const named = await prisma.apiToken.findUnique({ where: { tokenHash: hash }, include: { user: true } });
  if (named) {
    const now = new Date();
    if (named.revokedAt || (named.expiresAt && named.expiresAt <= now) || named.user.deletingAt || !sameHash(named.tokenHash, hash)) {
      throw invalidToken();
    }
    const { user } = named;
    return {
      kind: "user",
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      via: "token",
      scope: named.scope === "read_write" ? "read_write" : "read",
      tokenId: named.id,
    };
  }
  const user = await prisma.user.findUnique({ where: { legacyTokenHash: hash } });
  if (!user || user.legacyTokenDisabledAt || user.deletingAt || !sameHash(user.legacyTokenHash ?? "", hash)) throw invalidToken();
  return { kind: "user", userId: user.id, username: user.username, isAdmin: user.isAdmin, via: "legacy", scope: "read_write" };
}

async function identityFromSession(sessionToken: string): Promise<Identity> {
  const prisma = await db();
  const session = await prisma.session.findUnique({ where: { sessionToken }, include: { user: true } });
  if (!session || session.expires <= new Date() || session.user.deletingAt) throw sessionExpired();
  const { user } = session;
  return { kind: "user", userId: user.id, username: user.username, isAdmin: user.isAdmin, via: "session", scope: "read_write", sessionId: session.id };
}

/**
 * Resolves the caller from the request's credentials. A present but invalid credential is a 401
 * (never a silent fall back to anonymous). The administrator key is honoured only where `allowAdminKey`.
 */
export async function resolveIdentity(req: Request, options: { allowAdminKey?: boolean } = {}): Promise<Identity> {
  const adminKey = req.headers.get("x-admin-api-key");
  if (adminKey !== null && options.allowAdminKey) {
    const expected = config.adminApiKey;
    if (!expected || !sameSecret(adminKey, expected)) throw unauthorized("Invalid administrator key");
    return { kind: "admin-key" };
  }
  const token = credentialFromHeader(req.headers.get("authorization"));
  if (token) return identityFromToken(token);
  const sessionToken = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
  if (sessionToken) return identityFromSession(sessionToken);
  return anonymous;
}

function sameSecret(given: string, expected: string): boolean {
  return sameHash(hashToken(given), hashToken(expected));
}
