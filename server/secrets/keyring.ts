import crypto from "node:crypto";
import { config } from "@/server/config";
import { internal } from "@/server/errors";
import { openWithKey, sealWithKey } from "@/server/keys";

/**
 * The keys of the deployment secret store: DEPLOY_SECRET_KEY writes and reads,
 * DEPLOY_SECRET_KEY_PREVIOUS only reads (during a rotation). Each row names its key by a
 * fingerprint, so a reader knows which key to try and `secrets:rekey` knows what to rewrite.
 */
interface StoreKey {
  id: string;
  key: Buffer;
}

const toStoreKey = (base64: string): StoreKey => {
  const key = Buffer.from(base64, "base64");
  return { id: `k_${crypto.createHash("sha256").update(key).digest("hex").slice(0, 16)}`, key };
};

/** The writing key; DEPLOY_SECRET_KEY_MISSING without one. */
export function currentKey(): StoreKey {
  const configured = config.deploySecretKey;
  if (!configured)
    throw internal(
      "The secret store needs DEPLOY_SECRET_KEY to be configured on this instance",
      "DEPLOY_SECRET_KEY_MISSING",
    );
  return toStoreKey(configured);
}

function readableKeys(): StoreKey[] {
  return [config.deploySecretKey, config.deploySecretKeyPrevious].flatMap((value) =>
    value ? [toStoreKey(value)] : [],
  );
}

/** Whether a configured key (current or previous) has this fingerprint. */
export const isReadableKeyId = (keyId: string): boolean => readableKeys().some((key) => key.id === keyId);

/** Binds a value to its row: a ciphertext copied to another project or name does not open. */
const additionalData = (projectId: string, name: string) => `deploy-secret:${projectId}:${name}`;

export function sealSecret(projectId: string, name: string, value: string): { keyId: string; sealed: string } {
  const key = currentKey();
  return { keyId: key.id, sealed: sealWithKey(key.key, additionalData(projectId, name), value) };
}

/** The value of a stored row, or null when no configured key opens it for this project and name. */
export function openSecret(row: { projectId: string; name: string; keyId: string; sealed: string }): string | null {
  const key = readableKeys().find((candidate) => candidate.id === row.keyId);
  return key ? openWithKey(key.key, additionalData(row.projectId, row.name), row.sealed) : null;
}
