import crypto from "node:crypto";
import { db } from "@/server/db";

/** What tells two instances' secrets apart without revealing either: an HMAC of a fixed label under an HKDF subkey. */
export function keyCheckValue(name: string, secret: string): string {
  const subkey = Buffer.from(crypto.hkdfSync("sha256", secret, "svc-forge key check", name, 32));
  return crypto.createHmac("sha256", subkey).update(`svc-forge key check v1:${name}`).digest("base64url");
}

/**
 * Compares this instance's secret `name` with the check value stored in the database; the first
 * instance to start stores it. Throws, naming the variable, when the secret is another one: the
 * instances sharing this database would disagree on what they sealed or signed.
 */
export async function assertSameSecret(name: string, secret: string): Promise<void> {
  const prisma = await db();
  const check = keyCheckValue(name, secret);
  await prisma.keyCheck.createMany({ data: [{ name, check }], skipDuplicates: true });
  const stored = await prisma.keyCheck.findUniqueOrThrow({ where: { name } });
  if (stored.check === check) return;
  throw new Error(
    `${name} of this instance is not the one this database was set up with (first used ${stored.createdAt.toISOString()}): ` +
      `give every instance sharing the database the same ${name} (set it in the environment, or copy the first instance's generated file from its DATA_DIR)`,
  );
}
