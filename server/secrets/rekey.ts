import { db } from "@/server/db";
import { currentKey, openSecret, sealSecret } from "./keyring";

/**
 * Re-encrypts every row not under the current key. Each row is rewritten by compare-and-swap on
 * its sealed value, so a secret written meanwhile (already under the current key) is kept.
 * Rows no configured key opens are counted, never touched.
 */
export async function rekeySecrets(): Promise<{ rekeyed: number; unreadable: number }> {
  const key = currentKey();
  const prisma = await db();
  const rows = await prisma.projectSecret.findMany({ where: { keyId: { not: key.id } } });
  let rekeyed = 0;
  let unreadable = 0;
  for (const row of rows) {
    const value = openSecret(row);
    if (value === null) {
      unreadable++;
      continue;
    }
    const next = sealSecret(row.projectId, row.name, value);
    const updated = await prisma.projectSecret.updateMany({ where: { id: row.id, sealed: row.sealed }, data: next });
    rekeyed += updated.count;
  }
  return { rekeyed, unreadable };
}
