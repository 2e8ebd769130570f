import type { Deployment, Project } from "@/server/generated/prisma/client";
import { writeAudit } from "@/server/audit";
import { actorOf, isUuid, type Identity, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import { conflict, notFound } from "@/server/errors";
import { recordEvent } from "@/server/events";
import { atLeast, requireProject } from "@/server/projects";
import { assertQueueAvailable, enqueueDeployments } from "./queue";
import {
  deploymentEventData,
  deploymentView,
  TERMINAL_STATUSES,
  type DeploymentStatus,
  type DeploymentView,
} from "./view";

export interface ProjectRef {
  namespace: string;
  slug: string;
}

export async function listDeployments(
  identity: Identity,
  ref: ProjectRef,
  filter: { name?: string; status?: DeploymentStatus; limit: number; offset: number },
): Promise<{ deployments: DeploymentView[]; total: number }> {
  const { project, role } = await requireProject(identity, { namespace: ref.namespace, slug: ref.slug }, "read");
  const where = {
    projectId: project.id,
    ...(filter.name !== undefined ? { name: filter.name } : {}),
    ...(filter.status ? { status: filter.status } : {}),
  };
  const prisma = await db();
  const [rows, total] = await Promise.all([
    prisma.deployment.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { attempt: "desc" }],
      take: filter.limit,
      skip: filter.offset,
    }),
    prisma.deployment.count({ where }),
  ]);
  const withLog = atLeast(role, "write");
  return { deployments: rows.map((row) => deploymentView(row, project, withLog)), total };
}

/** A deployment and its project, authorized on that project: 404 when it cannot be read, 403 below `need`. */
async function requireDeployment(
  identity: Identity,
  id: string,
  need: "read" | "write",
): Promise<{ row: Deployment; project: Project; canWrite: boolean }> {
  if (!isUuid(id)) throw notFound("Deployment not found");
  const row = await (await db()).deployment.findUnique({ where: { id } });
  if (!row) throw notFound("Deployment not found");
  const { project, role } = await requireProject(identity, { id: row.projectId }, need);
  return { row, project, canWrite: atLeast(role, "write") };
}

export async function getDeployment(identity: Identity, id: string): Promise<DeploymentView> {
  const { row, project, canWrite } = await requireDeployment(identity, id, "read");
  return deploymentView(row, project, canWrite);
}

/**
 * `pending_approval` to `queued`, then handed to the queue. The conditional UPDATE decides
 * between racing approvers (one wins, the other gets DEPLOYMENT_NOT_PENDING). The queue binding
 * is checked before anything changes; a failed send leaves the row in the deploy outbox.
 */
export async function approveDeployment(identity: UserIdentity, id: string): Promise<DeploymentView> {
  const { project } = await requireDeployment(identity, id, "write");
  assertQueueAvailable();
  const approved = await (
    await db()
  ).$transaction(async (tx) => {
    const rows = await tx.deployment.updateManyAndReturn({
      where: { id, status: "pending_approval" },
      data: { status: "queued", approvedBy: actorOf(identity), approvedAt: new Date() },
    });
    if (rows.length === 0) throw conflict("The deployment is not awaiting approval", "DEPLOYMENT_NOT_PENDING");
    await writeAudit(tx, {
      action: "deployment.approved",
      identity,
      projectId: project.id,
      target: id,
      data: { name: rows[0].name, commit: rows[0].commit, attempt: rows[0].attempt },
    });
    return rows[0];
  });
  await enqueueDeployments({ ids: [id] });
  return deploymentView(await reread(approved), project, true);
}

/**
 * A new row for the same commit, attempt + 1, `queued`, carrying the change id. The unique key
 * (project, name, commit, attempt) makes two racing retries one row: the INSERT that loses finds
 * the row there (ON CONFLICT DO NOTHING) and answers DEPLOYMENT_RETRY_EXISTS.
 */
export async function retryDeployment(identity: Identity, id: string): Promise<DeploymentView> {
  const { row, project } = await requireDeployment(identity, id, "write");
  if (!TERMINAL_STATUSES.includes(row.status))
    throw conflict(`Only a finished deployment can be retried; this one is ${row.status}`, "DEPLOYMENT_NOT_RETRYABLE");
  assertQueueAvailable();
  const actor = actorOf(identity);
  const created = await (
    await db()
  ).$transaction(async (tx) => {
    const rows = await tx.deployment.createManyAndReturn({
      data: [
        {
          projectId: row.projectId,
          name: row.name,
          branch: row.branch,
          commit: row.commit,
          attempt: row.attempt + 1,
          status: "queued",
          changeId: row.changeId,
          requestedBy: actor,
        },
      ],
      skipDuplicates: true,
    });
    if (rows.length === 0)
      throw conflict(`Attempt ${row.attempt + 1} of this deployment already exists`, "DEPLOYMENT_RETRY_EXISTS");
    await recordEvent(tx, {
      projectId: row.projectId,
      kind: "deployment.requested",
      actor,
      data: deploymentEventData(rows[0]),
    });
    await writeAudit(tx, {
      action: "deployment.retried",
      identity,
      projectId: row.projectId,
      target: rows[0].id,
      data: { retriedId: id, attempt: rows[0].attempt },
    });
    return rows[0];
  });
  await enqueueDeployments({ ids: [created.id] });
  return deploymentView(await reread(created), project, true);
}

const reread = async (row: Deployment) => (await (await db()).deployment.findUnique({ where: { id: row.id } })) ?? row;
