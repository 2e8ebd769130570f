import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { forgetGrants } from "@/server/access";
import { writeAudit } from "@/server/audit";
import { db, type Tx } from "@/server/db";
import { config } from "@/server/config";
import { conflict, internal, invalid, timedOut } from "@/server/errors";
import { isValidBranchName, listBundleRefs, removeProjectRepos, unbundleRepository } from "@/server/git";
import { unreadableSecretKeyIds } from "@/server/secrets";
import { RESTORE_INSERT_BATCH } from "@/server/limits";
import { MANIFEST, MANIFEST_FORMAT, unpackArchive, type Manifest, type ManifestRepository } from "./archive";
import { quoteIdent, sequenceColumns, tablesInDependencyOrder } from "./tables";

const RESTORE_TX = { maxWait: 60_000, timeout: 3_600_000 };

const oid = () => z.string().regex(/^[0-9a-f]{40}$/);
const uuid = () => z.string().regex(/^[0-9a-f-]{36}$/);

/** The manifest is read from an uploaded file: every field is checked before anything is written. */
const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  createdAt: z.string(),
  serviceVersion: z.string(),
  database: z.object({
    // Restoring replaces every table: an archive without users would leave the instance with no one to sign in.
    tables: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.number().int().min(0))
      .refine((tables) => (tables.User ?? 0) > 0, "the archive holds no users"),
  }),
  repositories: z.array(
    z.object({
      projectId: uuid(),
      workspace: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/)
        .optional(),
      head: z.string().refine(isValidBranchName, "head is not a valid branch name"),
      refs: z.record(
        z.string().refine((ref) => ref.startsWith("refs/") && isValidBranchName(ref.slice(5)), "not a valid ref name"),
        oid(),
      ),
      shallow: z.array(oid()).optional(),
      bundle: z.string().nullable(),
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .nullable(),
    }),
  ),
});

const bad = (message: string) => invalid(`Not a usable backup archive: ${message}`, "BACKUP_INVALID");

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest("hex");
}

function readManifest(dir: string, members: string[]): Manifest {
  if (!members.includes(MANIFEST)) throw bad("no manifest.json at its root");
  const parsed = manifestSchema.safeParse(JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), "utf8")));
  if (!parsed.success) throw bad(`manifest.json: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}

/** A bundle matches its manifest entry: same bytes, and every ref it carries is the recorded one. */
async function verifyBundle(dir: string, members: string[], repository: ManifestRepository): Promise<string | null> {
  if (!repository.bundle) return null;
  // Only a member of the archive: any other path would read (and reveal) a file of this server.
  if (!repository.bundle.endsWith(".bundle") || !members.includes(repository.bundle))
    throw bad(`${repository.bundle} is not a bundle of the archive`);
  const file = path.join(dir, repository.bundle);
  if ((await sha256Of(file)) !== repository.sha256) throw bad(`${repository.bundle} does not match its sha256`);
  const carried = await listBundleRefs(file);
  for (const [ref, oid] of Object.entries(carried)) {
    if (repository.refs[ref] !== oid)
      throw bad(
        `${repository.bundle} carries ${ref} at ${oid}, the manifest says ${repository.refs[ref] ?? "nothing"}`,
      );
  }
  // A project's bundle has every ref; a fork's leaves out refs wholly in its project.
  if (!repository.workspace && Object.keys(carried).length !== Object.keys(repository.refs).length)
    throw bad(`${repository.bundle} lacks refs of the manifest`);
  return file;
}

async function loadTables(tx: Tx, dir: string, manifest: Manifest): Promise<void> {
  const order = await tablesInDependencyOrder(tx);
  const unknown = Object.keys(manifest.database.tables).filter((table) => !order.includes(table));
  if (unknown.length) throw bad(`tables this version does not have: ${unknown.join(", ")}`);
  await tx.$executeRawUnsafe(`TRUNCATE ${order.map(quoteIdent).join(", ")}`);
  for (const table of order) {
    if (!(table in manifest.database.tables)) continue;
    const lines = fs
      .readFileSync(path.join(dir, "database", `${table}.ndjson`), "utf8")
      .split("\n")
      .filter(Boolean);
    if (lines.length !== manifest.database.tables[table])
      throw bad(`${table} has ${lines.length} rows, the manifest says ${manifest.database.tables[table]}`);
    for (let start = 0; start < lines.length; start += RESTORE_INSERT_BATCH) {
      const batch = `[${lines.slice(start, start + RESTORE_INSERT_BATCH).join(",")}]`;
      await tx.$executeRawUnsafe(
        `INSERT INTO ${quoteIdent(table)} SELECT * FROM json_populate_recordset(NULL::${quoteIdent(table)}, $1::json)`,
        batch,
      );
    }
  }
  for (const { table, column } of await sequenceColumns(tx)) {
    await tx.$queryRawUnsafe(
      `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT MAX(${quoteIdent(column)}) FROM ${quoteIdent(table)}), 0) + 1, false)`,
      quoteIdent(table),
      column,
    );
  }
}

/** Secrets stay sealed with the backed-up instance's key: without that key here they could never be read. */
async function assertSecretsReadable(tx: Tx): Promise<void> {
  const unreadable = await unreadableSecretKeyIds(tx);
  if (unreadable.length === 0) return;
  throw internal(
    `The archive's deploy secrets are sealed with key ${unreadable.join(", ")}, which this instance does not have: set DEPLOY_SECRET_KEY (or DEPLOY_SECRET_KEY_PREVIOUS) to the backed-up instance's key and restore again`,
    "DEPLOY_SECRET_KEY_MISSING",
  );
}

/** Writes one repository from its bundle within RESTORE_PUSH_TIMEOUT_MS; past it, git is killed and PUSH_TIMEOUT thrown. */
async function pushRepository(repository: ManifestRepository, bundle: string | null): Promise<void> {
  const bound = config.restorePushTimeoutMs;
  const signal = AbortSignal.timeout(bound);
  try {
    await unbundleRepository(repository, bundle, repository.refs, { signal });
  } catch (error) {
    if (!signal.aborted) throw error;
    const name = repository.workspace
      ? `workspace ${repository.workspace} of project ${repository.projectId}`
      : `project ${repository.projectId}`;
    throw timedOut(
      `Restoring the repository of ${name} took longer than ${bound} ms; nothing was restored`,
      "PUSH_TIMEOUT",
    );
  }
}

export async function assertInstanceEmpty(client?: Tx): Promise<void> {
  const prisma = client ?? (await db());
  if ((await prisma.project.count()) > 0)
    throw conflict("Restore needs an instance without projects", "INSTANCE_NOT_EMPTY");
}

/**
 * Restores an archive into this instance (which must have no project): every bundle is checked
 * against the manifest, the repositories are written, then every table is replaced in one
 * transaction, so nothing of the restored data is visible before all of it is.
 */
export async function restoreArchive(
  archive: string,
  audit: { actor: string; ip: string | null },
): Promise<{ projects: number }> {
  const dir = `${archive}.unpacked`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  try {
    let members: string[];
    try {
      members = await unpackArchive(fs.createReadStream(archive), dir, config.restoreArchiveBytesMax);
    } catch (error) {
      throw bad((error as Error).message);
    }
    const manifest = readManifest(dir, members);
    await assertInstanceEmpty();
    const bundles = new Map<ManifestRepository, string | null>();
    for (const repository of manifest.repositories)
      bundles.set(repository, await verifyBundle(dir, members, repository));
    // Projects before their forks, which borrow the project's objects.
    const ordered = [...manifest.repositories].sort(
      (a, b) => Number(Boolean(a.workspace)) - Number(Boolean(b.workspace)),
    );
    for (const repository of ordered) {
      if (!repository.workspace) written.push(repository.projectId);
      await pushRepository(repository, bundles.get(repository) ?? null);
    }
    const prisma = await db();
    await prisma.$transaction(async (tx) => {
      await assertInstanceEmpty(tx);
      await loadTables(tx, dir, manifest);
      await assertSecretsReadable(tx);
      await writeAudit(tx, {
        action: "restore.completed",
        actor: audit.actor,
        ip: audit.ip,
        data: { createdAt: manifest.createdAt, serviceVersion: manifest.serviceVersion, projects: written.length },
      });
    }, RESTORE_TX);
    await forgetGrants();
    return { projects: written.length };
  } catch (error) {
    for (const projectId of written) removeProjectRepos(projectId);
    throw error;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
