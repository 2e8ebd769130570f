import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { auditActor, currentCallerAddress, writeAudit } from "@/server/audit";
import type { Identity } from "@/server/auth";
import { config } from "@/server/config";
import { db, NEWEST_FIRST, olderThan } from "@/server/db";
import { conflict, DomainError, notFound } from "@/server/errors";
import type { Backup, Restore } from "@/server/generated/prisma/client";
import { inngest } from "@/server/jobs";
import { writeBackupArchive } from "./create";
import { assertInstanceEmpty, restoreArchive } from "./restore";

export const BACKUP_REQUESTED_EVENT = "svc/backup.requested";
export const RESTORE_REQUESTED_EVENT = "svc/restore.requested";

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
export const newBackupId = () => newId("bak");
export const archivePathOf = (id: string) => path.join(config.backupDir, `${id}.tar`);
const uploadPath = (id: string) => path.join(config.backupDir, "restores", `${id}.tar`);
const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function backupView(backup: Backup) {
  return {
    id: backup.id,
    status: backup.status,
    createdAt: backup.createdAt.toISOString(),
    completedAt: iso(backup.completedAt),
    bytes: backup.bytes === null ? null : Number(backup.bytes),
    projects: backup.projects,
    error: backup.error,
  };
}

export function restoreView(restore: Restore) {
  return {
    id: restore.id,
    status: restore.status,
    projects: restore.projects,
    error: restore.error,
    code: restore.code,
  };
}

/** Accepts a backup (audited `backup.created`) and queues it; it runs in the background. */
export async function requestBackup(identity: Identity) {
  const prisma = await db();
  const backup = await prisma.$transaction(async (tx) => {
    const created = await tx.backup.create({ data: { id: newBackupId(), requestedBy: auditActor(identity) } });
    await writeAudit(tx, { action: "backup.created", identity, target: `backup:${created.id}` });
    return created;
  });
  await inngest.send({ name: BACKUP_REQUESTED_EVENT, data: { backupId: backup.id } });
  return backupView(backup);
}

/** Writes the archive of a requested backup and records the outcome (a failure is recorded, not thrown). */
export async function runBackup(backupId: string) {
  const prisma = await db();
  const backup = await prisma.backup.findUnique({ where: { id: backupId } });
  if (!backup || backup.status !== "running") return backup ? backupView(backup) : null;
  fs.mkdirSync(config.backupDir, { recursive: true, mode: 0o700 });
  try {
    const { bytes, projects } = await writeBackupArchive(archivePathOf(backupId));
    return backupView(
      await prisma.backup.update({
        where: { id: backupId },
        data: { status: "completed", completedAt: new Date(), bytes: BigInt(bytes), projects },
      }),
    );
  } catch (error) {
    fs.rmSync(archivePathOf(backupId), { force: true });
    return backupView(
      await prisma.backup.update({
        where: { id: backupId },
        data: { status: "failed", completedAt: new Date(), error: (error as Error).message },
      }),
    );
  }
}

/** Backups, newest first; `before` (a backup id: the previous page's last) reads the older page. */
export async function listBackups(page: { limit: number; before?: string }) {
  const prisma = await db();
  const cursor =
    page.before === undefined
      ? null
      : await prisma.backup.findUnique({ where: { id: page.before }, select: { id: true, createdAt: true } });
  if (page.before !== undefined && !cursor) throw notFound("No backup has that id");
  const rows = await prisma.backup.findMany({
    where: cursor ? olderThan(cursor) : {},
    orderBy: NEWEST_FIRST,
    take: page.limit,
  });
  return rows.map(backupView);
}

export async function getBackup(id: string) {
  const backup = await (await db()).backup.findUnique({ where: { id } });
  if (!backup) throw notFound("Backup not found");
  return backupView(backup);
}

/** The archive of a completed backup, as a stream; 409 while it is still running (or failed). */
export async function openBackupArchive(id: string): Promise<{ stream: ReadableStream<Uint8Array>; bytes: number }> {
  const backup = await getBackup(id);
  if (backup.status !== "completed") throw conflict(`The backup is ${backup.status}`, "BACKUP_NOT_READY");
  const file = archivePathOf(id);
  if (!fs.existsSync(file)) throw notFound("The backup's archive is no longer on disk");
  return {
    stream: Readable.toWeb(fs.createReadStream(file)) as ReadableStream<Uint8Array>,
    bytes: fs.statSync(file).size,
  };
}

/**
 * Takes an uploaded archive and queues its restore; 409 INSTANCE_NOT_EMPTY when any project exists.
 * `body` is written to disk as it streams in; its error (e.g. PAYLOAD_TOO_LARGE) leaves nothing behind.
 */
export async function requestRestore(identity: Identity, body: ReadableStream<Uint8Array> | null) {
  await assertInstanceEmpty();
  const id = newId("rst");
  const file = uploadPath(id);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Opened here rather than by the write stream, whose open is asynchronous: a body refused early
  // could otherwise be removed before the stream creates the file, which would then stay behind.
  const fd = fs.openSync(file, "w", 0o600);
  try {
    await pipeline(
      body ? Readable.fromWeb(body as WebReadableStream<Uint8Array>) : Readable.from([]),
      fs.createWriteStream(file, { fd }),
    );
  } catch (error) {
    fs.rmSync(file, { force: true });
    throw error;
  }
  const restore = await (
    await db()
  ).restore.create({ data: { id, requestedBy: auditActor(identity), ip: currentCallerAddress() } });
  await inngest.send({ name: RESTORE_REQUESTED_EVENT, data: { restoreId: id } });
  return restoreView(restore);
}

/** Restores an uploaded archive and records the outcome; the upload is removed either way. */
export async function runRestore(restoreId: string) {
  const prisma = await db();
  const restore = await prisma.restore.findUnique({ where: { id: restoreId } });
  if (!restore || restore.status !== "running") return restore ? restoreView(restore) : null;
  try {
    const { projects } = await restoreArchive(uploadPath(restoreId), {
      actor: restore.requestedBy ?? "system",
      ip: restore.ip,
    });
    return restoreView(
      await prisma.restore.update({
        where: { id: restoreId },
        data: { status: "completed", completedAt: new Date(), projects },
      }),
    );
  } catch (error) {
    const code = error instanceof DomainError ? (error.code ?? null) : null;
    return restoreView(
      await prisma.restore.update({
        where: { id: restoreId },
        data: { status: "failed", completedAt: new Date(), error: (error as Error).message, code },
      }),
    );
  } finally {
    fs.rmSync(uploadPath(restoreId), { force: true });
  }
}

export async function getRestore(id: string) {
  const restore = await (await db()).restore.findUnique({ where: { id } });
  if (!restore) throw notFound("Restore not found");
  return restoreView(restore);
}
