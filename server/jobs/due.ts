import type { JobsDb } from "./store";

/** What the executor may find to do, read in one statement of indexed lookups. */
export interface DueWork {
  /** Events wait for dispatch. */
  events: boolean;
  /** Runs are due now: new, retried, ended sleeps and waits, or leases that expired (a crash). */
  runs: boolean;
  /** When the earliest cron tick of these functions is due (it may be past). */
  cronAt: number | null;
  /** The earliest time after now at which a run or a cron tick becomes due, if any. */
  nextAt: number | null;
}

interface DueRow {
  events: boolean;
  runAt: Date | null;
  leaseAt: Date | null;
  cronAt: Date | null;
}

/**
 * Looks for work without touching it: an idle executor runs this instead of a dispatch and a claim,
 * and sets a timer for `nextAt` instead of polling for it.
 */
export async function dueWork(jobs: JobsDb, functionIds: string[], cronIds: string[], now: number): Promise<DueWork> {
  const [row] = await jobs.prisma.$queryRawUnsafe<DueRow[]>(
    `SELECT EXISTS (SELECT 1 FROM "JobEvent" WHERE "processedAt" IS NULL) AS events,
       (SELECT MIN("availableAt") FROM "JobRun" WHERE status IN ('queued', 'sleeping', 'waiting') AND "functionId" = ANY($1::text[])) AS "runAt",
       (SELECT MIN("leaseExpiresAt") FROM "JobRun" WHERE status = 'running' AND "functionId" = ANY($1::text[])) AS "leaseAt",
       (SELECT MIN("nextAt") FROM "JobSchedule" WHERE "functionId" = ANY($2::text[])) AS "cronAt"`,
    functionIds,
    cronIds,
  );
  const runAt = row.runAt?.getTime() ?? null;
  // As the claim reads them: a run is due at its time, a lease is lost only after its expiry.
  const lostAt = row.leaseAt ? row.leaseAt.getTime() + 1 : null;
  const cronAt = row.cronAt?.getTime() ?? null;
  const later = [runAt, lostAt, cronAt].filter((at): at is number => at !== null && at > now);
  return {
    events: row.events,
    runs: [runAt, lostAt].some((at) => at !== null && at <= now),
    cronAt,
    nextAt: later.length ? Math.min(...later) : null,
  };
}
