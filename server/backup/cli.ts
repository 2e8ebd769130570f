import fs from "node:fs";
import path from "node:path";
import { invalid } from "@/server/errors";
import { writeAudit } from "@/server/audit";
import { db } from "@/server/db";
import { restoreArchive } from "./restore";
import { archivePathOf, newBackupId, runBackup } from "./service";

export const BACKUP_USAGE = `usage: npm run svc -- backup | restore <archive.tar>
  backup              write a backup archive under BACKUP_DIR; prints {backup, archive}
  restore <archive>   restore an archive into this instance (it must have no project); prints {restore}`;

async function backupCommand() {
  const prisma = await db();
  const id = newBackupId();
  await prisma.$transaction(async (tx) => {
    await tx.backup.create({ data: { id, requestedBy: "system" } });
    await writeAudit(tx, { action: "backup.created", target: `backup:${id}`, ip: null });
  });
  const backup = await runBackup(id);
  if (backup?.status !== "completed") throw new Error(`Backup failed: ${backup?.error ?? "unknown"}`);
  return { backup, archive: archivePathOf(id) };
}

async function restoreCommand(file: string) {
  if (!fs.existsSync(file)) throw invalid(`No such file: ${file}`);
  return { restore: await restoreArchive(path.resolve(file), { actor: "system", ip: null }) };
}

/** The operator commands of this area (scripts/svc.ts); undefined when `argv` names none of them. */
export function runBackupCommand(argv: string[]): Promise<unknown> | undefined {
  const [command, ...rest] = argv;
  if (command === "backup" && rest.length === 0) return backupCommand();
  if (command === "restore" && rest.length === 1) return restoreCommand(rest[0]);
  if (command === "backup" || command === "restore") throw invalid(BACKUP_USAGE);
  return undefined;
}
