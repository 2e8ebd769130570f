import { db } from "@/server/db";
import { JOB_PRUNE_BATCH, JOB_ROWS_RETENTION_DAYS } from "@/server/limits";

const ENDED = ["completed", "failed", "cancelled"] as const;

/**
 * Deletes runs that ended (their steps go with them) and events already processed, once older than
 * the retention; in batches. Active runs and unprocessed events are never touched.
 */
export async function pruneJobRows(now = new Date()): Promise<{ runs: number; events: number }> {
  const prisma = await db();
  const cutoff = new Date(now.getTime() - JOB_ROWS_RETENTION_DAYS * 86_400_000);
  let runs = 0;
  let events = 0;
  for (;;) {
    const batch = await prisma.jobRun.findMany({
      where: { status: { in: [...ENDED] }, endedAt: { lt: cutoff } },
      select: { id: true },
      take: JOB_PRUNE_BATCH,
    });
    if (batch.length === 0) break;
    runs += (await prisma.jobRun.deleteMany({ where: { id: { in: batch.map((run) => run.id) } } })).count;
  }
  for (;;) {
    const batch = await prisma.jobEvent.findMany({
      where: { processedAt: { lt: cutoff } },
      select: { seq: true },
      take: JOB_PRUNE_BATCH,
    });
    if (batch.length === 0) break;
    events += (await prisma.jobEvent.deleteMany({ where: { seq: { in: batch.map((event) => event.seq) } } })).count;
  }
  return { runs, events };
}
