import { db } from "@/server/db";
import { queueSync } from "./sync";

/**
 * The auto-sync cron's work: queues a sync (trigger `auto`) for every project with auto-sync on,
 * a completed import, and no sync started within its frequency. Returns how many were queued.
 */
export async function queueDueSyncs(now = new Date()): Promise<number> {
  const prisma = await db();
  const sources = await prisma.projectSource.findMany({
    where: { autoSyncEnabled: true, project: { importPending: false, deletingAt: null } },
    select: {
      projectId: true,
      syncFrequency: true,
      project: { select: { syncRuns: { orderBy: { createdAt: "desc" }, take: 1, select: { createdAt: true } } } },
    },
  });
  let queued = 0;
  for (const source of sources) {
    const last = source.project.syncRuns[0]?.createdAt;
    if (last && last.getTime() + source.syncFrequency * 60_000 > now.getTime()) continue;
    if (await queueSync(source.projectId, "auto")) queued += 1;
  }
  return queued;
}
