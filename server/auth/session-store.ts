import type { AdapterSession } from "next-auth/adapters";
import { db } from "@/server/db";
import { hashToken } from "./tokens";

/**
 * Browser sessions are stored by the SHA-256 of their cookie token, like API tokens: the cookie
 * holds the only copy of the token, so a stolen database cannot be replayed as a session.
 * Auth.js sees the plaintext token it handed out; only this module turns it into the stored hash.
 */
export async function createSession(session: AdapterSession): Promise<AdapterSession> {
  const prisma = await db();
  await prisma.session.create({
    data: { tokenHash: hashToken(session.sessionToken), userId: session.userId, expires: session.expires },
  });
  return session;
}

/** The session of a cookie token with its user, or null. */
export async function findSession(sessionToken: string) {
  const prisma = await db();
  return prisma.session.findUnique({ where: { tokenHash: hashToken(sessionToken) }, include: { user: true } });
}

export async function updateSession(
  session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
): Promise<AdapterSession | null> {
  const prisma = await db();
  const where = { tokenHash: hashToken(session.sessionToken) };
  const { count } = await prisma.session.updateMany({
    where,
    data: { ...(session.expires ? { expires: session.expires } : {}) },
  });
  if (count === 0) return null;
  const row = await prisma.session.findUniqueOrThrow({ where });
  return { sessionToken: session.sessionToken, userId: row.userId, expires: row.expires };
}

export async function deleteSession(sessionToken: string): Promise<void> {
  const prisma = await db();
  await prisma.session.deleteMany({ where: { tokenHash: hashToken(sessionToken) } });
}
