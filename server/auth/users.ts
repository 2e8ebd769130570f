import { namedSchema } from "@/server/http";
import { z } from "zod";
import { db, type DbOrTx } from "@/server/db";
import { DomainError, conflict } from "@/server/errors";
import { USER_TOKEN_PREFIX, mintToken } from "./tokens";

/** A username is also the user's namespace: same rules as a project slug, and unique. */
export const usernameSchema = () =>
  z
    .string()
    .regex(
      /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38})$/,
      "must be 1-39 letters, digits, - or _, starting with a letter or digit",
    );

export const publicUser = (user: { id: string; username: string }) => ({ id: user.id, username: user.username });

/** The output schema of publicUser (built per use: trpc-to-openapi mutates shared schemas). */
export const publicUserOutput = namedSchema("User", () => z.object({ id: z.string(), username: z.string() }));

/** The username of the user `id` (an SQL expression), as an SQL subquery: for a read that shows it with its own rows. */
export const usernameSql = (id: string) => `(SELECT u.username FROM "User" AS u WHERE u.id = ${id})`;

/** Creates a user with a freshly minted legacy credential; the plaintext is returned once. */
export async function createUser(username: string, client?: DbOrTx, options: { isAdmin?: boolean } = {}) {
  const prisma = client ?? (await db());
  const legacy = mintToken(USER_TOKEN_PREFIX);
  if (await isNamespaceTaken(username, prisma)) throw conflict(`Username ${username} is taken`, "CONFLICT");
  try {
    const user = await prisma.user.create({
      data: {
        username,
        legacyTokenHash: legacy.hash,
        legacyTokenPrefix: legacy.displayPrefix,
        isAdmin: options.isAdmin ?? false,
      },
    });
    return { user, token: legacy.plaintext };
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw conflict(`Username ${username} is taken`, "CONFLICT");
    throw error;
  }
}

/**
 * Users and organizations share one namespace (`@name`). Both kinds of name are checked here, the
 * one place that knows of both.
 */
export async function isNamespaceTaken(name: string, client?: DbOrTx): Promise<boolean> {
  const prisma = client ?? (await db());
  const [user, org] = await Promise.all([
    prisma.user.findUnique({ where: { username: name } }),
    prisma.organization.findUnique({ where: { slug: name } }),
  ]);
  return Boolean(user || org);
}

/** A user by username, or null. */
export async function findUserByUsername(username: string, client?: DbOrTx) {
  const prisma = client ?? (await db());
  return prisma.user.findUnique({ where: { username }, select: { id: true, username: true } });
}

/** A user by id, or null. */
export async function findUserById(id: string, client?: DbOrTx) {
  const prisma = client ?? (await db());
  return prisma.user.findUnique({ where: { id }, select: { id: true, username: true } });
}

/** The user of that name, created when there is none (a concurrent creation's user is taken). */
export async function findOrCreateUser(username: string) {
  const prisma = await db();
  const existing = await prisma.user.findUnique({ where: { username } });
  if (existing) return existing;
  try {
    return (await createUser(username)).user;
  } catch (error) {
    const raced =
      error instanceof DomainError && error.kind === "conflict"
        ? await prisma.user.findUnique({ where: { username } })
        : null;
    if (raced) return raced;
    throw error;
  }
}
