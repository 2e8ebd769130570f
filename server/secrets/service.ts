import type { ProjectSecret } from "@/server/generated/prisma/client";
import { writeAudit } from "@/server/audit";
import { actorOf, type Identity } from "@/server/auth";
import { db, type DbOrTx } from "@/server/db";
import { forbidden, invalid, notFound, unauthenticated } from "@/server/errors";
import { SECRET_NAME_PATTERN, SECRET_VALUE_BYTES_MAX } from "@/server/limits";
import { requireProject } from "@/server/projects";
import { isReadableKeyId, openSecret, sealSecret } from "./keyring";

export interface ProjectRef {
  namespace: string;
  slug: string;
}

export interface SecretView {
  name: string;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
}

const secretView = (row: ProjectSecret): SecretView => ({
  name: row.name,
  createdBy: row.createdBy,
  updatedBy: row.updatedBy,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** Secret routes: a user (401 without one, 403 for an agent) with admin access to the project (404 when it cannot read it). */
async function requireSecretAdmin(identity: Identity, ref: ProjectRef) {
  if (identity.kind === "anonymous") throw unauthenticated();
  if (identity.kind !== "user") throw forbidden("Secrets are managed by people, not agents or keys");
  const { project } = await requireProject(identity, { namespace: ref.namespace, slug: ref.slug }, "admin");
  return project;
}

export function assertSecretName(name: string): void {
  if (!SECRET_NAME_PATTERN.test(name)) throw invalid("Secret names match ^[A-Z][A-Z0-9_]{0,63}$", "VALIDATION_ERROR");
}

function assertSecretValue(value: string): void {
  if (Buffer.byteLength(value, "utf8") > SECRET_VALUE_BYTES_MAX)
    throw invalid(`A secret value is at most ${SECRET_VALUE_BYTES_MAX} bytes`, "VALIDATION_ERROR");
  if (value.includes("\u0000")) throw invalid("A secret value must not contain the NUL character", "VALIDATION_ERROR");
}

export async function listSecrets(identity: Identity, ref: ProjectRef): Promise<SecretView[]> {
  const project = await requireSecretAdmin(identity, ref);
  const rows = await (
    await db()
  ).projectSecret.findMany({ where: { projectId: project.id }, orderBy: { name: "asc" } });
  return rows.map(secretView);
}

/**
 * Creates or replaces a secret. One INSERT ... ON CONFLICT DO UPDATE, so two writers of one name
 * never both create it; `xmax = 0` tells a fresh insert from an update.
 */
export async function putSecret(
  identity: Identity,
  ref: ProjectRef,
  name: string,
  value: string,
): Promise<{ secret: SecretView; created: boolean }> {
  assertSecretName(name);
  assertSecretValue(value);
  const project = await requireSecretAdmin(identity, ref);
  const actor = actorOf(identity);
  const { keyId, sealed } = sealSecret(project.id, name, value);
  return (await db()).$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: string; created: boolean }>>`
      INSERT INTO "ProjectSecret" ("id", "projectId", "name", "keyId", "sealed", "createdBy", "updatedBy", "createdAt", "updatedAt")
      VALUES (gen_random_uuid(), ${project.id}::uuid, ${name}, ${keyId}, ${sealed}, ${actor}, ${actor}, now(), now())
      ON CONFLICT ("projectId", "name") DO UPDATE
        SET "keyId" = EXCLUDED."keyId", "sealed" = EXCLUDED."sealed", "updatedBy" = EXCLUDED."updatedBy", "updatedAt" = now()
      RETURNING "id", (xmax = 0) AS "created"`;
    const row = await tx.projectSecret.findUniqueOrThrow({ where: { id: rows[0].id } });
    await writeAudit(tx, {
      action: "secret.written",
      identity,
      projectId: project.id,
      target: name,
      data: { created: rows[0].created },
    });
    return { secret: secretView(row), created: rows[0].created };
  });
}

/** 404 for an unknown name, unless `missingOk` (then `deleted: false`). */
export async function deleteSecret(
  identity: Identity,
  ref: ProjectRef,
  name: string,
  options: { missingOk?: boolean } = {},
): Promise<{ deleted: boolean; name: string }> {
  const project = await requireSecretAdmin(identity, ref);
  const deleted = await (
    await db()
  ).$transaction(async (tx) => {
    const removed = await tx.projectSecret.deleteMany({ where: { projectId: project.id, name } });
    if (removed.count === 0) {
      if (options.missingOk) return false;
      throw notFound("No secret of that name");
    }
    await writeAudit(tx, { action: "secret.deleted", identity, projectId: project.id, target: name });
    return true;
  });
  return { deleted, name };
}

/**
 * The values of the named secrets of a project, for the provider of a deployment that names them;
 * `missing` lists names not stored (or not readable with the configured keys).
 */
export async function secretValues(
  projectId: string,
  names: string[],
  client?: DbOrTx,
): Promise<{ values: Record<string, string>; missing: string[] }> {
  const rows = names.length
    ? await (client ?? (await db())).projectSecret.findMany({ where: { projectId, name: { in: names } } })
    : [];
  const values: Record<string, string> = {};
  for (const row of rows) {
    const value = openSecret(row);
    if (value !== null) values[row.name] = value;
  }
  return { values, missing: names.filter((name) => !(name in values)) };
}

/** Every readable value of a project's store: what logs are redacted against. */
export async function allSecretValues(projectId: string): Promise<string[]> {
  const rows = await (await db()).projectSecret.findMany({ where: { projectId } });
  return rows.flatMap((row) => openSecret(row) ?? []);
}

/** Fingerprints of keys that sealed stored secrets and that no configured key matches (a restore refuses those). */
export async function unreadableSecretKeyIds(client: DbOrTx): Promise<string[]> {
  const rows = await client.projectSecret.findMany({ distinct: ["keyId"], select: { keyId: true } });
  return rows.map((row) => row.keyId).filter((keyId) => !isReadableKeyId(keyId));
}

/** At start: refuses to go on when stored deploy secrets were sealed with keys this instance is not given. */
export async function assertDeploySecretsReadable(): Promise<void> {
  const unreadable = await unreadableSecretKeyIds(await db());
  if (unreadable.length === 0) return;
  throw new Error(
    `DEPLOY_SECRET_KEY of this instance does not open the stored deploy secrets (sealed with key ${unreadable.join(", ")}): ` +
      "give every instance sharing the database the same DEPLOY_SECRET_KEY (DEPLOY_SECRET_KEY_PREVIOUS during a rotation)",
  );
}
