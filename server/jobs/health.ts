import { config } from "@/server/config";
import { db } from "@/server/db";
import { embeddedExecutor } from "./embedded";
import { inngestConfigured } from "./mode";

export interface QueueHealth {
  ok: boolean;
  detail: string;
}

/** Work due this long ago and still not picked up means the executor is stalled. */
export const STALL_AFTER_MS = 2 * 60_000;
/** The executor's loop runs at least every idle poll (5 s); this much silence means it hangs. */
const LOOP_SILENCE_MS = 30_000;

/**
 * The background-job queue's health for /api/health (non-critical: a failure is "degraded").
 * With Inngest configured the queue is Inngest's. Embedded: failed when due runs, expired leases or
 * undispatched events wait longer than STALL_AFTER_MS, or when this process's executor loop stopped.
 */
export async function queueHealth(): Promise<QueueHealth> {
  if (inngestConfigured()) return { ok: true, detail: `inngest (${config.inngestBaseUrl ?? "Inngest Cloud"})` };
  const prisma = await db();
  const stalledBefore = new Date(Date.now() - STALL_AFTER_MS);
  const [overdueRuns, expiredLeases, overdueEvents] = await Promise.all([
    prisma.jobRun.count({
      where: { status: { in: ["queued", "sleeping", "waiting"] }, availableAt: { lt: stalledBefore } },
    }),
    prisma.jobRun.count({ where: { status: "running", leaseExpiresAt: { lt: stalledBefore } } }),
    prisma.jobEvent.count({ where: { processedAt: null, receivedAt: { lt: stalledBefore } } }),
  ]);
  const executor = embeddedExecutor();
  if (executor?.lastTickAt && Date.now() - executor.lastTickAt > LOOP_SILENCE_MS) {
    return {
      ok: false,
      detail: `executor stalled: its loop last ran ${Math.round((Date.now() - executor.lastTickAt) / 1000)} s ago`,
    };
  }
  if (overdueRuns + expiredLeases + overdueEvents > 0) {
    return {
      ok: false,
      detail: `executor stalled: ${overdueRuns + expiredLeases} runs and ${overdueEvents} events overdue by more than ${STALL_AFTER_MS / 60_000} min`,
    };
  }
  if (executor?.lastTickError) return { ok: false, detail: `executor failing: ${executor.lastTickError}` };
  return { ok: true, detail: executor ? "embedded executor running" : "embedded executor not running in this process" };
}
