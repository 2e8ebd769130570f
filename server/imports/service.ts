import { randomUUID } from "node:crypto";
import type { Project, ProjectImport } from "@/server/generated/prisma/client";
import { ImportStatus } from "@/server/generated/prisma/enums";
import { actingUserId, type Identity } from "@/server/auth";
import { db, type Tx } from "@/server/db";
import { conflict, forbidden, invalid, notFound, unauthenticated } from "@/server/errors";
import { isValidBranchName } from "@/server/git";
import { HttpError, namedRateLimiter, rateLimitHeaders } from "@/server/http";
import { inngest } from "@/server/jobs";
import { IMPORT_RATE_PER_MINUTE, IMPORT_STALL_MS } from "@/server/limits";
import {
  createImportTarget,
  findProject,
  projectPath,
  projectRemote,
  requireProject,
  setImportPending,
} from "@/server/projects";
import { parseSourceUrl } from "@/server/providers";
import { IN_FLIGHT, importView, sourceView } from "./views";

/** The job event of an import; `lease` is the queueing it belongs to (see runner.ts). */
export const IMPORT_REQUESTED_EVENT = "svc/import.requested";

type ProjectRef = { namespace: string; slug: string };

/** 3 import or retry requests per minute per user: 429 with Retry-After beyond. */
async function assertImportRate(userId: string): Promise<void> {
  const result = await namedRateLimiter("imports", IMPORT_RATE_PER_MINUTE).limit(`import:${userId}`);
  if (result.success) return;
  const retryAfter = String(Math.max(1, Math.ceil((result.reset - Date.now()) / 1000)));
  throw new HttpError(
    429,
    "Too many requests",
    undefined,
    {},
    { "Retry-After": retryAfter, ...rateLimitHeaders(result) },
  );
}

/** The caller's own username: imports go only to the caller's own namespace (403 elsewhere). */
export async function callerInOwnNamespace(identity: Identity, namespace: string): Promise<string> {
  const userId = actingUserId(identity);
  if (!userId) throw unauthenticated("A user or agent identity is required");
  const user = await (await db()).user.findUnique({ where: { id: userId }, select: { username: true } });
  if (!user) throw unauthenticated();
  if (user.username !== namespace) throw forbidden("Imports go only to your own namespace");
  return userId;
}

/** Serializes import writes of one project: a row lock on the project (PGlite has one connection anyway). */
export async function lockProjectRow(tx: Tx, projectId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "Project" WHERE id = ${projectId}::uuid FOR UPDATE`;
}

export async function latestImport(projectId: string, client?: Tx): Promise<ProjectImport | null> {
  return (client ?? (await db())).projectImport.findFirst({
    where: { projectId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

/** Sends the job; a failed send fails the import (retryable) rather than leaving it queued forever. */
async function enqueueImport(row: Pick<ProjectImport, "id" | "lease">): Promise<void> {
  try {
    await inngest.send({
      id: `import-${row.id}-${row.lease}`,
      name: IMPORT_REQUESTED_EVENT,
      data: { importId: row.id, lease: row.lease },
    });
  } catch (error) {
    await (
      await db()
    ).projectImport.updateMany({
      where: { id: row.id, lease: row.lease, status: "queued" },
      data: {
        status: "failed",
        failureCategory: "UNKNOWN_ERROR",
        error: `The import could not be queued: ${(error as Error).message}`,
        completedAt: new Date(),
        updatedAt: new Date(),
      },
    });
  }
}

/** A new queued attempt for a project whose last import failed or was cancelled (caller holds the row lock). */
async function queueAttempt(tx: Tx, projectId: string, requestedById: string): Promise<ProjectImport> {
  await setImportPending(tx, projectId, true);
  return tx.projectImport.create({ data: { id: randomUUID(), projectId, requestedById, status: "queued", lease: 1 } });
}

export interface ImportRequest {
  url: string;
  branch: string;
  depth?: number;
  visibility: "private" | "public";
}

/**
 * POST .../import: creates `@<caller>/<slug>` from a provider repository and queues the import
 * (201). For an existing imported project it answers 200 and re-triggers a failed or cancelled
 * import; one queued or running is left alone.
 */
export async function requestImport(identity: Identity, ref: ProjectRef, input: ImportRequest) {
  const userId = await callerInOwnNamespace(identity, ref.namespace);
  const source = parseSourceUrl(input.url);
  if (!isValidBranchName(input.branch)) throw invalid(`Invalid branch name ${JSON.stringify(input.branch)}`);
  await assertImportRate(userId);
  const existing = await findProject(ref);
  if (existing) return repeatImport(existing, userId);
  const { project, extra } = await createImportTarget(
    identity,
    {
      ownerUserId: userId,
      namespace: ref.namespace,
      slug: ref.slug,
      visibility: input.visibility,
      defaultBranch: input.branch,
      source: { provider: source.provider, url: source.url },
    },
    async (tx, created) => {
      const stored = await tx.projectSource.create({
        data: {
          projectId: created.id,
          provider: source.provider,
          owner: source.owner,
          repo: source.repo,
          url: source.url,
          branch: input.branch,
          depth: input.depth ?? null,
        },
      });
      const row = await tx.projectImport.create({
        data: { projectId: created.id, requestedById: userId, status: "queued", lease: 1 },
      });
      return { stored, row };
    },
  );
  await enqueueImport(extra.row);
  return {
    created: true as const,
    body: {
      namespace: project.namespace,
      slug: project.slug,
      importId: extra.row.id,
      path: projectPath(project),
      status: "queued" as const,
      source: sourceView(extra.stored),
      visibility: project.visibility,
    },
  };
}

async function repeatImport(project: Project, userId: string) {
  if (project.deletingAt) throw conflict("The project is being deleted", "TARGET_DELETING");
  const prisma = await db();
  const { row, source, queued } = await prisma.$transaction(async (tx) => {
    await lockProjectRow(tx, project.id);
    const source = await tx.projectSource.findUnique({ where: { projectId: project.id } });
    if (!source) throw invalid(`${projectPath(project)} exists and was not imported`);
    const latest = await latestImport(project.id, tx);
    if (latest && (latest.status === "failed" || latest.status === "cancelled"))
      return { row: await queueAttempt(tx, project.id, userId), source, queued: true };
    if (!latest) throw invalid(`${projectPath(project)} has no import`);
    return { row: latest, source, queued: false };
  });
  if (queued) await enqueueImport(row);
  return {
    created: false as const,
    body: {
      namespace: project.namespace,
      slug: project.slug,
      remote: projectRemote(project),
      source: sourceView(source),
      importId: row.id,
      status: row.status,
    },
  };
}

async function importedProject(identity: Identity, ref: ProjectRef, need: "read" | "owner") {
  const { project } = await requireProject(identity, ref, need);
  const prisma = await db();
  const [source, latest] = await Promise.all([
    prisma.projectSource.findUnique({ where: { projectId: project.id } }),
    latestImport(project.id),
  ]);
  if (!source || !latest) throw notFound("The project was not imported");
  return { project, source, latest };
}

/**
 * Import progress. A running import whose heartbeat is older than 5 minutes lost its runner: it is
 * queued again under a new lease (`recovered: true`); a stalled `cancelling` one becomes cancelled.
 */
export async function importStatus(identity: Identity, ref: ProjectRef) {
  const { project, source, latest } = await importedProject(identity, ref, "read");
  const recovered = await recoverStalled(latest);
  const row = recovered ? ((await latestImport(project.id)) ?? latest) : latest;
  return { ...importView(row, source), ...(recovered ? { recovered: true } : {}) };
}

async function recoverStalled(row: ProjectImport): Promise<boolean> {
  const threshold = new Date(Date.now() - IMPORT_STALL_MS);
  if (!(row.status === "running" || row.status === "cancelling") || row.updatedAt >= threshold) return false;
  const prisma = await db();
  const now = new Date();
  // Conditional on the stale heartbeat and the lease: a runner that woke up, or another status poll, wins.
  const data =
    row.status === "running"
      ? { status: ImportStatus.queued, lease: row.lease + 1, runner: null, phase: null, updatedAt: now }
      : { status: ImportStatus.cancelled, failureCategory: "CANCELLED", completedAt: now, updatedAt: now };
  const { count } = await prisma.projectImport.updateMany({
    where: { id: row.id, lease: row.lease, status: row.status, updatedAt: { lt: threshold } },
    data,
  });
  if (count === 0) return false;
  if (row.status === "running") await enqueueImport({ id: row.id, lease: row.lease + 1 });
  return true;
}

function assertRetryable(latest: ProjectImport | null): void {
  if (latest && IN_FLIGHT.includes(latest.status))
    throw conflict("An import of this project is already in flight", "IMPORT_IN_PROGRESS");
  if (!latest || (latest.status !== "failed" && latest.status !== "cancelled"))
    throw invalid(`Only a failed or cancelled import can be retried (this one is ${latest?.status})`);
}

/** POST .../import/retry: a failed or cancelled import is queued again (owner only, rate limited). */
export async function retryImport(identity: Identity, ref: ProjectRef) {
  const userId = await callerInOwnNamespace(identity, ref.namespace);
  const { project, latest } = await importedProject(identity, ref, "owner");
  assertRetryable(latest);
  await assertImportRate(userId);
  const row = await (
    await db()
  ).$transaction(async (tx) => {
    await lockProjectRow(tx, project.id);
    assertRetryable(await latestImport(project.id, tx));
    return queueAttempt(tx, project.id, userId);
  });
  await enqueueImport(row);
  return {
    message: "Import queued again",
    namespace: project.namespace,
    slug: project.slug,
    status: "queued" as const,
  };
}

/** POST .../import/cancel: queued -> cancelled at once; running -> cancelling (the runner stops git). */
export async function cancelImport(identity: Identity, ref: ProjectRef) {
  await callerInOwnNamespace(identity, ref.namespace);
  const { project } = await importedProject(identity, ref, "owner");
  const status = await (
    await db()
  ).$transaction(async (tx) => {
    await lockProjectRow(tx, project.id);
    const latest = await latestImport(project.id, tx);
    const now = new Date();
    if (latest?.status === "queued") {
      await tx.projectImport.update({
        where: { id: latest.id },
        data: { status: "cancelled", failureCategory: "CANCELLED", completedAt: now, updatedAt: now },
      });
      return "cancelled" as const;
    }
    if (latest?.status === "running") {
      await tx.projectImport.update({ where: { id: latest.id }, data: { status: "cancelling" } });
      return "cancelling" as const;
    }
    throw invalid(`The import is not in a cancellable state (${latest?.status ?? "none"})`);
  });
  return {
    message: status === "cancelled" ? "Import cancelled" : "Import cancelling",
    namespace: project.namespace,
    slug: project.slug,
    status,
  };
}
