import { db, NEWEST_FIRST, olderThan } from "@/server/db";
import { conflict, notFound } from "@/server/errors";
import { inngest } from "@/server/jobs/client";
import { LIST_LIMIT_DEFAULT } from "@/server/limits";
import { JobRunStatus } from "@/server/generated/prisma/enums";
import { ACTIVE_STATUSES, isActive } from "./store";

export { JobRunStatus };
export type RunStatus = JobRunStatus;

export interface RunFilter {
  status?: RunStatus;
  /** With or without the app prefix ("deletion-job" or "svc-forge-deletion-job"). */
  function?: string;
  /** Only runs older than this run (a run id: the previous page's last). */
  before?: string;
  limit?: number;
}

type RunRow = Awaited<ReturnType<Awaited<ReturnType<typeof db>>["jobRun"]["findFirstOrThrow"]>>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function runView(run: RunRow) {
  const stepFailures = Object.values((run.stepAttempts ?? {}) as Record<string, number>).reduce((sum, n) => sum + n, 0);
  const event = run.event as { id?: string; name?: string };
  return {
    id: run.id,
    function: run.functionId,
    status: run.status,
    event: { id: String(event.id ?? ""), name: String(event.name ?? "") },
    failedAttempts: run.attempt + stepFailures,
    lastError: run.lastError,
    concurrencyKey: run.concurrencyKey,
    nextAttemptAt: isActive(run.status) && run.status !== "running" ? iso(run.availableAt) : null,
    createdAt: iso(run.createdAt)!,
    startedAt: iso(run.startedAt),
    endedAt: iso(run.endedAt),
  };
}

export async function listRuns(filter: RunFilter) {
  const prisma = await db();
  const fn =
    filter.function && !filter.function.startsWith(`${inngest.id}-`)
      ? `${inngest.id}-${filter.function}`
      : filter.function;
  const cursor =
    filter.before === undefined
      ? null
      : await prisma.jobRun.findUnique({ where: { id: filter.before }, select: { id: true, createdAt: true } });
  if (filter.before !== undefined && !cursor) throw notFound("No job run has that id");
  const runs = await prisma.jobRun.findMany({
    where: { status: filter.status, functionId: fn, ...(cursor ? olderThan(cursor) : {}) },
    orderBy: NEWEST_FIRST,
    take: filter.limit ?? LIST_LIMIT_DEFAULT,
  });
  return runs.map(runView);
}

export async function getRun(id: string) {
  const prisma = await db();
  const run = await prisma.jobRun.findUnique({ where: { id }, include: { steps: { orderBy: { seq: "asc" } } } });
  if (!run) throw notFound("Job run not found");
  return {
    ...runView(run),
    output: run.output ?? null,
    steps: run.steps.map((step) => ({
      name: step.name,
      status: step.type === "data" ? ("completed" as const) : ("failed" as const),
      attempts: step.attempts,
      error: step.type === "error" ? ((step.error as { message?: string } | null)?.message ?? "failed") : null,
      completedAt: step.completedAt.toISOString(),
    })),
  };
}

/** Cancels a run that has not ended; a step in flight finishes, nothing after it runs. */
export async function cancelRun(id: string) {
  const prisma = await db();
  const { count } = await prisma.jobRun.updateMany({
    where: { id, status: { in: [...ACTIVE_STATUSES] } },
    data: {
      status: "cancelled",
      endedAt: new Date(),
      leaseOwner: null,
      leaseExpiresAt: null,
      pending: [],
      waitEvents: [],
      lastError: "cancelled by an administrator",
    },
  });
  if (!count) {
    if (!(await prisma.jobRun.findUnique({ where: { id }, select: { id: true } }))) throw notFound("Job run not found");
    throw conflict("Job run already ended", "JOB_ALREADY_ENDED");
  }
  return getRun(id);
}
