import { db } from "@/server/db/client";

/** After the deletion function's last attempt: a job still `deleting` becomes `incomplete` (re-drivable). */
export async function markDeletionJobIncomplete(jobId: string, reason: string): Promise<void> {
  const prisma = await db();
  await prisma.deletionJob.updateMany({ where: { id: jobId, status: "deleting" }, data: { status: "incomplete", lastError: reason } });
}
