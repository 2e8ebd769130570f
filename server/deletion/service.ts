import { randomBytes } from "node:crypto";
import type { DeletionJob } from "@/server/generated/prisma/client";
import { db, type Tx } from "@/server/db";
import { forgetGrants } from "@/server/access";
import { actingUserId, forgetUserCredentials, type Identity } from "@/server/auth";
import { invalid } from "@/server/errors";
import { projectPath, requireProject } from "@/server/projects";
import { inngest } from "@/server/jobs";
import { writeAudit } from "@/server/audit";
import { stepsFor } from "./steps";

export type DeletionKind = "project" | "user";
export const DELETION_REQUESTED_EVENT = "svc/deletion.requested";

const newJobId = () => `del_${randomBytes(12).toString("hex")}`;

/** Marks the target as being deleted; false when it already was (or is gone). */
async function markDeleting(tx: Tx, kind: DeletionKind, targetId: string): Promise<boolean> {
  const where = { id: targetId, deletingAt: null };
  const data = { deletingAt: new Date() };
  if (kind === "project") return (await tx.project.updateMany({ where, data })).count === 1;
  const { count } = await tx.user.updateMany({ where, data });
  // Writes to the projects of a departing owner are refused too (TARGET_DELETING).
  await tx.project.updateMany({ where: { ownerUserId: targetId, deletingAt: null }, data });
  return count === 1;
}

/**
 * Accepts a deletion: the target is marked (writes answer TARGET_DELETING, a deleted user's
 * credentials stop working at once) and a job is queued. A request while a job for the same
 * target is still unfinished returns that job. `audit` writes the request's audit row in the same
 * transaction, only when this call created the job.
 */
export async function requestDeletion(
  kind: DeletionKind,
  targetId: string,
  requestedBy: string | null,
  audit?: (tx: Tx) => Promise<void>,
): Promise<{ status: "deleting"; jobId: string }> {
  const prisma = await db();
  const { job, created } = await prisma.$transaction(async (tx) => {
    // The conditional update takes the target's row lock, so concurrent requests queue here.
    await markDeleting(tx, kind, targetId);
    const open = await tx.deletionJob.findFirst({
      where: { kind, targetId, status: { in: ["deleting", "incomplete"] } },
      orderBy: { createdAt: "desc" },
    });
    if (open) return { job: open, created: false };
    const job = await tx.deletionJob.create({ data: { id: newJobId(), kind, targetId, requestedBy } });
    await audit?.(tx);
    return { job, created: true };
  });
  // Reads take project rows from the access cache; a project being deleted must leave it now.
  await forgetGrants();
  if (kind === "user") forgetUserCredentials(targetId);
  if (created) await enqueueDeletion(job);
  return { status: "deleting", jobId: job.id };
}

/**
 * Accepts a project deletion: owner only (404 for anyone else), `confirm` must be exactly
 * `@ns/slug`. A repeat while the cascade runs returns the same job.
 */
export async function requestProjectDeletion(
  identity: Identity,
  ref: { namespace: string; slug: string },
  confirm: string | undefined,
) {
  const { project } = await requireProject(identity, ref, "owner", { deniedStatus: 404 });
  if (confirm !== projectPath(project))
    throw invalid(`confirm must be exactly ${projectPath(project)}`, "VALIDATION_ERROR");
  return requestDeletion("project", project.id, actingUserId(identity) ?? null, (tx) =>
    writeAudit(tx, {
      action: "project.deleted",
      identity,
      projectId: project.id,
      target: `project:${project.id}`,
      data: { path: projectPath(project) },
    }),
  );
}

/** Sends the job to the executor; a failed send leaves it incomplete (re-drivable) rather than lost. */
export async function enqueueDeletion(job: Pick<DeletionJob, "id">): Promise<void> {
  try {
    await inngest.send({ name: DELETION_REQUESTED_EVENT, data: { jobId: job.id } });
  } catch (error) {
    const prisma = await db();
    await prisma.deletionJob.update({
      where: { id: job.id },
      data: { status: "incomplete", lastError: `enqueue failed: ${(error as Error).message}` },
    });
  }
}

/**
 * Runs (or resumes) a deletion job: every step not yet in `stepsDone`, in order, recording each as
 * it finishes. A failing step leaves the job `incomplete` with `lastError`; running it again resumes.
 */
export async function runDeletionJob(jobId: string): Promise<"completed" | "incomplete"> {
  const prisma = await db();
  const job = await prisma.deletionJob.findUnique({ where: { id: jobId } });
  if (!job) throw new Error(`Unknown deletion job ${jobId}`);
  if (job.status === "completed") return "completed";
  await prisma.deletionJob.update({ where: { id: jobId }, data: { status: "deleting", attempts: { increment: 1 } } });
  const done = new Set(job.stepsDone);
  for (const step of stepsFor(job.kind)) {
    if (done.has(step.name)) continue;
    try {
      await step.run(job.targetId, prisma);
    } catch (error) {
      await prisma.deletionJob.update({
        where: { id: jobId },
        data: { status: "incomplete", lastError: `${step.name}: ${(error as Error).message}` },
      });
      return "incomplete";
    }
    await prisma.deletionJob.update({ where: { id: jobId }, data: { stepsDone: { push: step.name } } });
  }
  await prisma.deletionJob.update({
    where: { id: jobId },
    data: { status: "completed", completedAt: new Date(), lastError: null },
  });
  return "completed";
}

/** After the deletion function's last attempt: a job still `deleting` becomes `incomplete` (re-drivable). */
export async function markDeletionJobIncomplete(jobId: string, reason: string): Promise<void> {
  const prisma = await db();
  await prisma.deletionJob.updateMany({
    where: { id: jobId, status: "deleting" },
    data: { status: "incomplete", lastError: reason },
  });
}
