import { BACKUP_REQUESTED_EVENT, RESTORE_REQUESTED_EVENT, runBackup, runRestore } from "@/server/backup";
import { inngest } from "@/server/jobs";

/** Writes a requested backup's archive (one at a time per instance's executor: backups are heavy). */
export const backupRun = inngest.createFunction(
  { id: "backup-run", triggers: [{ event: BACKUP_REQUESTED_EVENT }], retries: 0, concurrency: { limit: 1 } },
  async ({ event, step }) =>
    step.run("write-archive", async () => ({
      status: (await runBackup(String(event.data.backupId)))?.status ?? "missing",
    })),
);

/** Restores an uploaded archive; a failure is recorded on the restore, so the run is not retried. */
export const restoreRun = inngest.createFunction(
  { id: "restore-run", triggers: [{ event: RESTORE_REQUESTED_EVENT }], retries: 0, concurrency: { limit: 1 } },
  async ({ event, step }) =>
    step.run("restore-archive", async () => ({
      status: (await runRestore(String(event.data.restoreId)))?.status ?? "missing",
    })),
);
