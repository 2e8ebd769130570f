import { config } from "@/server/config";
import { db } from "@/server/db";
import { unauthenticated } from "@/server/errors";
import { anonymous, type Identity } from "./identity";
import {
  AGENT_TOKEN_PREFIX,
  OAUTH_TOKEN_PREFIX,
  USER_TOKEN_PREFIX,
  credentialFromHeader,
  hashToken,
  sameHash,
} from "./tokens";
import { SESSION_COOKIE, readCookie } from "./session-cookie";
import { findSession } from "./session-store";
import { cacheCredential, cachedCredential, type CachedCredential } from "./credential-cache";
import { noteLastUsed, touchLastUsed } from "./last-used";
import { WORKSPACE_KEY_PREFIX, deadKeyPresented, loadWorkspaceKey } from "./workspace-keys";

const sessionExpired = () => unauthenticated("Session expired", "SESSION_EXPIRED");
const invalidToken = () => unauthenticated("Invalid or expired token");

const asScope = (scope: string): "read" | "read_write" => (scope === "read_write" ? "read_write" : "read");

/** Loads a bearer credential from the database; undefined when no live credential has this hash. */
async function loadCredential(token: string, hash: string): Promise<CachedCredential | undefined> {
  if (token.startsWith(WORKSPACE_KEY_PREFIX)) return loadWorkspaceKey(hash);
  const prisma = await db();
  if (token.startsWith(AGENT_TOKEN_PREFIX)) {
    const agent = await prisma.agent.findUnique({ where: { tokenHash: hash }, include: { owner: true } });
    if (!agent || agent.revokedAt || agent.owner.deletingAt || !sameHash(agent.tokenHash, hash)) return undefined;
    noteLastUsed(agent.id, agent.lastUsedAt);
    return {
      identity: {
        kind: "agent",
        agentId: agent.id,
        agentName: agent.name,
        ownerId: agent.ownerId,
        ownerUsername: agent.owner.username,
      },
      userId: agent.ownerId,
      expiresAt: null,
      usage: { table: "agent", id: agent.id },
    };
  }
  const oauth = token.startsWith(OAUTH_TOKEN_PREFIX);
  if (!oauth && !token.startsWith(USER_TOKEN_PREFIX)) return undefined;
  const row = await prisma.apiToken.findUnique({ where: { tokenHash: hash }, include: { user: true } });
  if (row) {
    if (
      row.kind !== (oauth ? "oauth" : "token") ||
      row.revokedAt ||
      row.user.deletingAt ||
      !sameHash(row.tokenHash, hash)
    )
      return undefined;
    noteLastUsed(row.id, row.lastUsedAt);
    const { user } = row;
    return {
      identity: {
        kind: "user",
        userId: user.id,
        username: user.username,
        isAdmin: user.isAdmin,
        via: oauth ? "oauth" : "token",
        scope: asScope(row.scope),
        tokenId: row.id,
      },
      userId: user.id,
      expiresAt: row.expiresAt,
      usage: { table: "apiToken", id: row.id },
    };
  }
  if (oauth) return undefined;
  const user = await prisma.user.findUnique({ where: { legacyTokenHash: hash } });
  if (!user || user.legacyTokenDisabledAt || user.deletingAt || !sameHash(user.legacyTokenHash ?? "", hash))
    return undefined;
  return {
    identity: {
      kind: "user",
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      via: "legacy",
      scope: "read_write",
    },
    userId: user.id,
    expiresAt: null,
  };
}

/**
 * Bearer credentials are cached by hash (see credential-cache.ts); expiry is checked on every use,
 * and lastUsedAt is written at most once a minute per credential.
 */
async function identityFromToken(token: string): Promise<Identity> {
  const hash = hashToken(token);
  let credential = cachedCredential(hash);
  if (!credential) {
    const readAt = Date.now();
    credential = await loadCredential(token, hash);
    if (!credential) throw invalidToken();
    cacheCredential(hash, credential, readAt);
  }
  if (credential.expiresAt && credential.expiresAt.getTime() <= Date.now()) {
    if (credential.identity.kind === "workspace-key") await deadKeyPresented(credential.identity.keyId);
    throw invalidToken();
  }
  if (credential.usage) await touchLastUsed(credential.usage);
  return credential.identity;
}

async function identityFromSession(sessionToken: string): Promise<Identity> {
  const session = await findSession(sessionToken);
  if (!session || session.expires <= new Date() || session.user.deletingAt) throw sessionExpired();
  const { user } = session;
  return {
    kind: "user",
    userId: user.id,
    username: user.username,
    isAdmin: user.isAdmin,
    via: "session",
    scope: "read_write",
    sessionId: session.id,
  };
}

/**
 * Resolves the caller from the request's credentials. A present but invalid credential is a 401
 * (never a silent fall back to anonymous). The administrator key is honoured only where `allowAdminKey`.
 */
export async function resolveIdentity(req: Request, options: { allowAdminKey?: boolean } = {}): Promise<Identity> {
  const adminKey = req.headers.get("x-admin-api-key");
  if (adminKey !== null && options.allowAdminKey) {
    const expected = config.adminApiKey;
    if (!expected || !sameSecret(adminKey, expected)) throw unauthenticated("Invalid administrator key");
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
