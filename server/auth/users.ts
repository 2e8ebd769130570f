import { z } from "zod";
import { db, type DbOrTx } from "@/server/db";
import { conflict } from "@/server/errors";
import { USER_TOKEN_PREFIX, mintToken } from "./tokens";

/** A username is also the user's namespace: same rules as a project slug, and unique. */
export const usernameSchema = () =>
  z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38})$/, "must be 1-39 letters, digits, - or _, starting with a letter or digit");

export const publicUser = (user: { id: string; username: string }) => ({ id: user.id, username: user.username });

/** Creates a user with a freshly minted legacy credential; the plaintext is returned once. */
export async function createUser(username: string, client?: DbOrTx) {
  const prisma = client ?? (await db());
  const legacy = mintToken(USER_TOKEN_PREFIX);
  const taken = await prisma.user.findUnique({ where: { username } });
  if (taken) throw conflict(`Username ${username} is taken`, "CONFLICT");
  const namespaceTaken = await prisma.organization.findUnique({ where: { slug: username } });
  if (namespaceTaken) throw conflict(`Namespace ${username} is taken`, "CONFLICT");
  try {
    const user = await prisma.user.create({
      data: { username, legacyTokenHash: legacy.hash, legacyTokenPrefix: legacy.displayPrefix },
    });
    return { user, token: legacy.plaintext };
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw conflict(`Username ${username} is taken`, "CONFLICT");
    throw error;
  }
}
