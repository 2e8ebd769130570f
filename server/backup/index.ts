// The area's front door: other areas import from here, never from inside the area.
export {
  BACKUP_REQUESTED_EVENT,
  RESTORE_REQUESTED_EVENT,
  getBackup,
  getRestore,
  listBackups,
  openBackupArchive,
  requestBackup,
  requestRestore,
  runBackup,
  runRestore,
} from "./service";
export { runBackupCommand } from "./cli";
export { BackupStatus } from "@/server/generated/prisma/enums";
