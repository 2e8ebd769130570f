import crypto from "node:crypto";
import { config } from "@/server/config";
import { instanceSecret } from "./instance-secret";
import { assertSameSecret } from "./check";

/**
 * Secrets the service must read back (webhook signing secrets, later the deployment secret store)
 * are sealed with AES-256-GCM under a key derived from the instance key (SECRET_KEY, or one
 * generated into DATA_DIR/secret-key). Each purpose gets its own subkey (HKDF) and is bound as
 * associated data, so a value sealed for one purpose never opens as another.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export type SealPurpose = "webhook-secret" | "page-flash";

const VERSION = "v1";

const instanceKey = () => instanceSecret("secret-key", config.secretKey);

function keyFor(purpose: SealPurpose): Buffer {
  return Buffer.from(crypto.hkdfSync("sha256", instanceKey(), "svc-forge seal", purpose, 32));
}

/** Refuses to go on when SECRET_KEY is not the one the database's sealed values were written with. */
export const assertSameSecretKey = () => assertSameSecret("SECRET_KEY", instanceKey());

/**
 * AES-256-GCM with `aad` bound as associated data, in the format above. The building block of
 * `seal` and of stores that hold their own keys (the deployment secret store).
 */
export function sealWithKey(key: Buffer, aad: string, plaintext: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

/** The plaintext of a `sealWithKey` value, or null when it does not open with this key and `aad`. */
export function openWithKey(key: Buffer, aad: string, sealed: string): string | null {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) return null;
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

export const seal = (purpose: SealPurpose, plaintext: string): string =>
  sealWithKey(keyFor(purpose), purpose, plaintext);

export class UnsealError extends Error {
  constructor(purpose: SealPurpose) {
    super(`A sealed ${purpose} does not open with this instance's SECRET_KEY`);
    this.name = "UnsealError";
  }
}

export function unseal(purpose: SealPurpose, sealed: string): string {
  const plaintext = openWithKey(keyFor(purpose), purpose, sealed);
  if (plaintext === null) throw new UnsealError(purpose);
  return plaintext;
}
