import type { DbOrTx } from "@/server/db";

/** Not a valid username (those start with a letter or digit), so no one can register it. */
export const TOMBSTONE_USERNAME = "~deleted-user";

/** The user that deleted accounts' contributions point at, created on first use. */
export async function tombstoneUserId(client: DbOrTx): Promise<string> {
  const existing = await client.user.findFirst({ where: { isTombstone: true }, select: { id: true } });
  if (existing) return existing.id;
  const created = await client.user.upsert({
    where: { username: TOMBSTONE_USERNAME },
    create: { username: TOMBSTONE_USERNAME, isTombstone: true },
    update: {},
    select: { id: true },
  });
  return created.id;
}
