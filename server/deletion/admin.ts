import { db, NEWEST_FIRST, olderThan } from "@/server/db";
import { conflict, notFound } from "@/server/errors";
import { hasLiveRun, inngestConfigured } from "@/server/jobs";
import { DELETION_STALL_SECONDS } from "@/server/limits";
import type { DeletionJob } from "@/server/generated/prisma/client";
import { DELETION_REQUESTED_EVENT, enqueueDeletion } from "./service";

/** The contract's statuses: a job that stopped short (`incomplete` in the table) is `failed`. */
export type DeletionJobStatus = "deleting" | "completed" | "failed";

const wireStatus = (job: DeletionJob): DeletionJobStatus => (job.status === "incomplete" ? "failed" : job.status);

function jobView(job: DeletionJob) {
  return {
    id: job.id,
    kind: job.kind,
    targetId: job.targetId,
    status: wireStatus(job),
    // the last step finished, or null before the first
    step: job.stepsDone.at(-1) ?? null,
    attempts: job.attempts,
    error: job.lastError,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}

/** Deletion jobs, newest first; `before` (a job id: the previous page's last) reads the older page. */
export async function listDeletionJobs(filter: { status?: DeletionJobStatus; before?: string; limit: number }) {
  const prisma = await db();
  const status = filter.status === "failed" ? "incomplete" : filter.status;
  const cursor =
    filter.before === undefined
      ? null
      : await prisma.deletionJob.findUnique({ where: { id: filter.before }, select: { id: true, createdAt: true } });
  if (filter.before !== undefined && !cursor) throw notFound("No deletion job has that id");
  const jobs = await prisma.deletionJob.findMany({
    where: { status, ...(cursor ? olderThan(cursor) : {}) },
    orderBy: NEWEST_FIRST,
    take: filter.limit,
  });
  return jobs.map(jobView);
}

/**
 * A `deleting` job has stalled when nothing is running it: the embedded executor has no live run of
 * it (with Inngest, whose runs we cannot see, when it has not moved for DELETION_STALL_SECONDS).
 */
async function stalled(job: DeletionJob): Promise<boolean> {
  if (inngestConfigured()) return Date.now() - job.updatedAt.getTime() > DELETION_STALL_SECONDS * 1000;
  return !(await hasLiveRun(DELETION_REQUESTED_EVENT, "jobId", job.id));
}

/** Starts an incomplete job again (failed, or stalled with no live run); 409 NOT_REDRIVABLE otherwise. */
export async function redriveDeletionJob(id: string): Promise<{ status: "deleting"; jobId: string }> {
  const prisma = await db();
  const job = await prisma.deletionJob.findUnique({ where: { id } });
  if (!job) throw notFound("Deletion job not found");
  const incomplete = job.status === "incomplete" || (job.status === "deleting" && (await stalled(job)));
  if (!incomplete) throw conflict("The deletion job is not in an incomplete state", "NOT_REDRIVABLE");
  // Compare-and-swap on updatedAt: of two concurrent redrives only one moves the row, so one run starts.
  const { count } = await prisma.deletionJob.updateMany({
    where: { id, updatedAt: job.updatedAt },
    data: { status: "deleting", lastError: null },
  });
  if (count === 0) throw conflict("The deletion job changed meanwhile", "NOT_REDRIVABLE");
  await enqueueDeletion(job);
  return { status: "deleting", jobId: job.id };
}
