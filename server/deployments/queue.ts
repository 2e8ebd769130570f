import { config } from "@/server/config";
import { db } from "@/server/db";
import { unavailable } from "@/server/errors";
import { inngest } from "@/server/jobs";
import { log } from "@/server/log";

/** The deploy queue's event: one per queued deployment (the job in inngest/functions/deploy.ts). */
export const DEPLOYMENT_REQUESTED_EVENT = "svc/deployment.requested";

/** Approve and retry refuse before changing anything when there is no queue binding. */
export function assertQueueAvailable(): void {
  if (!config.deployQueueEnabled)
    throw unavailable("This instance has no deploy queue (DEPLOY_QUEUE=off)", "DEPLOY_QUEUE_UNAVAILABLE");
}

/**
 * Hands queued deployments not yet handed over (`enqueuedAt` null: the deploy outbox) to the
 * queue, then marks them. The event id is derived from the deployment, so a second send (two
 * callers, or a crash between send and mark) starts no second job. A failed send leaves the rows
 * in the outbox for the five-minute sweep and never fails the caller. Answers how many were sent.
 */
export async function enqueueDeployments(scope: { projectId?: string; ids?: string[] } = {}): Promise<number> {
  if (!config.deployQueueEnabled) return 0;
  const prisma = await db();
  const rows = await prisma.deployment.findMany({
    where: {
      status: "queued",
      enqueuedAt: null,
      ...(scope.projectId ? { projectId: scope.projectId } : {}),
      ...(scope.ids ? { id: { in: scope.ids } } : {}),
    },
    select: { id: true, projectId: true, name: true },
    orderBy: { createdAt: "asc" },
    take: 500,
  });
  if (rows.length === 0) return 0;
  try {
    await inngest.send(
      rows.map((row) => ({
        id: `deployment-${row.id}`,
        name: DEPLOYMENT_REQUESTED_EVENT,
        data: { deploymentId: row.id, projectId: row.projectId, name: row.name },
      })),
    );
  } catch (error) {
    log().error(
      { deployments: rows.length, err: (error as Error).message },
      "deployments: sending to the deploy queue failed; the outbox sweep will retry",
    );
    return 0;
  }
  await prisma.deployment.updateMany({
    where: { id: { in: rows.map((row) => row.id) }, enqueuedAt: null },
    data: { enqueuedAt: new Date() },
  });
  return rows.length;
}
