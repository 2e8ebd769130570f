import crypto from "node:crypto";
import { PrismaAdapter } from "@auth/prisma-adapter";
import type { Adapter, AdapterUser } from "next-auth/adapters";
import { db } from "@/server/db";
import { DomainError, conflict } from "@/server/errors";
import { createSession, deleteSession, findSession, updateSession } from "./session-store";
import { createUser } from "./users";

type UserRow = { id: string; username: string; deletingAt: Date | null; isTombstone: boolean };

// Our users have a username (their namespace) and no email: Auth.js sees the username as `name`.
const toAdapterUser = (user: UserRow): AdapterUser => ({
  id: user.id,
  name: user.username,
  email: "",
  emailVerified: null,
});
const usable = (user: UserRow | null | undefined) => (user && !user.deletingAt && !user.isTombstone ? user : null);

/** A provider's display name turned into a free username: letters, digits, - and _, suffixed when taken. */
async function createUserFromProfile(name: string | null | undefined) {
  const base =
    (name ?? "")
      .replace(/[^A-Za-z0-9_-]+/g, "-")
      .replace(/^[-_]+/, "")
      .slice(0, 30) || "user";
  for (let attempt = 0; attempt < 5; attempt++) {
    const username = attempt === 0 ? base : `${base}-${crypto.randomBytes(3).toString("hex")}`;
    try {
      return (await createUser(username)).user;
    } catch (error) {
      if (!(error instanceof DomainError && error.kind === "conflict")) throw error;
    }
  }
  throw conflict("Could not find a free username", "CONFLICT");
}

/**
 * Auth.js's Prisma adapter for sessions, accounts and verification tokens, with the user methods
 * mapped onto our User model (username instead of name/email; new users get a legacy credential).
 */
export async function authAdapter(): Promise<Adapter> {
  const prisma = await db();
  const base = PrismaAdapter(prisma);
  return {
    ...base,
    async createUser(user) {
      return toAdapterUser(await createUserFromProfile(user.name));
    },
    async getUser(id) {
      const user = usable(await prisma.user.findUnique({ where: { id } }));
      return user ? toAdapterUser(user) : null;
    },
    getUserByEmail: async () => null,
    async getUserByAccount(providerAccount) {
      const account = await prisma.account.findUnique({
        where: { provider_providerAccountId: providerAccount },
        include: { user: true },
      });
      const user = usable(account?.user);
      return user ? toAdapterUser(user) : null;
    },
    async updateUser(user) {
      const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
      return toAdapterUser(row);
    },
    createSession,
    updateSession,
    deleteSession,
    async getSessionAndUser(sessionToken) {
      const row = await findSession(sessionToken);
      const user = usable(row?.user);
      if (!row || !user) return null;
      return { session: { sessionToken, userId: row.userId, expires: row.expires }, user: toAdapterUser(user) };
    },
  };
}
