import crypto from "node:crypto";
import { config } from "@/server/config";
import { instanceSecret } from "./instance-secret";

/**
 * Secrets the service must read back (webhook signing secrets, later the deployment secret store)
 * are sealed with AES-256-GCM under a key derived from the instance key (SECRET_KEY, or one
 * generated into DATA_DIR/secret-key). Each purpose gets its own subkey (HKDF) and is bound as
 * associated data, so a value sealed for one purpose never opens as another.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export type SealPurpose = "webhook-secret";

const VERSION = "v1";

function keyFor(purpose: SealPurpose): Buffer {
  const secret = instanceSecret("secret-key", config.secretKey);
  return Buffer.from(crypto.hkdfSync("sha256", secret, "svc-forge seal", purpose, 32));
}

export function seal(purpose: SealPurpose, plaintext: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", keyFor(purpose), iv);
  cipher.setAAD(Buffer.from(purpose));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
}

export class UnsealError extends Error {
  constructor(purpose: SealPurpose) {
    super(`A sealed ${purpose} does not open with this instance's SECRET_KEY`);
    this.name = "UnsealError";
  }
}

export function unseal(purpose: SealPurpose, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new UnsealError(purpose);
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", keyFor(purpose), Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new UnsealError(purpose);
  }
}
