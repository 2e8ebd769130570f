import type { Project, ProjectSource, SyncRun } from "@/server/generated/prisma/client";
import type { SyncRunStatus, SyncTrigger } from "@/server/generated/prisma/enums";
import type { Identity } from "@/server/auth";
import { db, type Tx } from "@/server/db";
import { conflict, invalid, unauthenticated } from "@/server/errors";
import { openProjectRepo } from "@/server/git";
import { inngest } from "@/server/jobs";
import { requireProject, type ProjectRole } from "@/server/projects";
import { providerRefusal } from "@/server/providers";
import { callerInOwnNamespace, latestImport, lockProjectRow } from "./service";
import { commitsBehindSource, remoteTip } from "./upstream";

export const SYNC_REQUESTED_EVENT = "svc/sync.requested";
const ACTIVE: SyncRunStatus[] = ["queued", "running"];

type ProjectRef = { namespace: string; slug: string };

async function connectedProject(
  identity: Identity,
  ref: ProjectRef,
  need: ProjectRole,
): Promise<{ project: Project; source: ProjectSource }> {
  const { project } = await requireProject(identity, ref, need);
  const source = await (await db()).projectSource.findUnique({ where: { projectId: project.id } });
  if (!source) throw invalid("The project is not connected to a remote");
  return { project, source };
}

/** The provider repository a project was imported from, or null. */
export async function projectSourceOf(projectId: string): Promise<ProjectSource | null> {
  return (await db()).projectSource.findUnique({ where: { projectId } });
}

/** The connected projects a push to `owner/repo` `branch` concerns (auto-sync on, import completed). */
export async function projectsFollowing(pushed: { owner: string; repo: string; branch: string }): Promise<string[]> {
  const { owner, repo, branch } = pushed;
  const sources = await (
    await db()
  ).projectSource.findMany({
    where: {
      owner: { equals: owner, mode: "insensitive" },
      repo: { equals: repo, mode: "insensitive" },
      branch,
      autoSyncEnabled: true,
      project: { importPending: false, deletingAt: null },
    },
    select: { projectId: true },
  });
  return sources.map((source) => source.projectId);
}

/**
 * Queues a sync run unless one is queued or running (the project row lock serializes requesters),
 * recording what the request saw of the source (its tip and how far ahead it is) when it asked.
 */
export async function queueSync(
  projectId: string,
  trigger: SyncTrigger,
  seen?: { latestCommit: string; commitsBehind: number },
): Promise<SyncRun | null> {
  const run = await (
    await db()
  ).$transaction(async (tx: Tx) => {
    await lockProjectRow(tx, projectId);
    if (await tx.syncRun.findFirst({ where: { projectId, status: { in: ACTIVE } }, select: { id: true } })) return null;
    if (seen) await tx.projectSource.update({ where: { projectId }, data: seen });
    return tx.syncRun.create({ data: { projectId, trigger, status: "queued" } });
  });
  if (run) await inngest.send({ id: `sync-${run.id}`, name: SYNC_REQUESTED_EVENT, data: { syncRunId: run.id } });
  return run;
}

/**
 * POST .../sync (owner namespace only): asks the source for the branch tip. Equal to the last
 * synced commit: nothing to do. Otherwise the provider counts the new commits (compare API) and a
 * sync job is queued; only the job fetches. 400 without a source or while a sync is queued or running.
 */
export async function requestSync(identity: Identity, ref: ProjectRef) {
  await callerInOwnNamespace(identity, ref.namespace);
  const { project, source } = await connectedProject(identity, ref, "owner");
  const latest = await latestImport(project.id);
  if (latest?.status !== "completed") throw conflict("The project's import has not completed", "IMPORT_IN_PROGRESS");
  const prisma = await db();
  if (
    await prisma.syncRun.findFirst({ where: { projectId: project.id, status: { in: ACTIVE } }, select: { id: true } })
  )
    throw invalid("A sync is already in progress");
  const repo = openProjectRepo(project.id);
  let latestCommit: string;
  let commitsBehind = 0;
  try {
    latestCommit = await remoteTip(source);
    if (latestCommit !== source.lastSyncedCommit) commitsBehind = await commitsBehindSource(repo, source, latestCommit);
  } catch (error) {
    throw providerRefusal(error);
  }
  const base = {
    namespace: project.namespace,
    slug: project.slug,
    importId: latest.id,
    latestCommit,
    lastSyncedCommit: source.lastSyncedCommit,
  };
  if (latestCommit === source.lastSyncedCommit)
    return { ...base, message: "Already up to date", status: "idle", hasUpdates: false, commitsBehind: 0 };
  const run = await queueSync(project.id, "manual", { latestCommit, commitsBehind });
  if (!run) throw invalid("A sync is already in progress");
  return { ...base, message: "Sync queued", status: "queued", hasUpdates: true, commitsBehind };
}

const errorOf = (run: Pick<SyncRun, "errorCode" | "errorMessage">) =>
  run.errorCode ? { code: run.errorCode, message: run.errorMessage ?? "" } : null;

/** Sync status: the newest run, and how far the source's tip last seen was ahead of the last synced commit. */
export async function syncStatus(identity: Identity, ref: ProjectRef, need: ProjectRole = "read") {
  const { project, source } = await connectedProject(identity, ref, need);
  const latest = await (
    await db()
  ).syncRun.findFirst({ where: { projectId: project.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  const latestCommit = source.latestCommit ?? source.lastSyncedCommit;
  const commitsBehind = latestCommit !== source.lastSyncedCommit ? source.commitsBehind : 0;
  return {
    status: latest?.status ?? ("idle" as const),
    hasUpdates: commitsBehind > 0,
    commitsBehind,
    latestCommit,
    lastSyncedCommit: source.lastSyncedCommit,
    lastSyncAt: source.lastSyncAt?.toISOString() ?? null,
    error: latest ? errorOf(latest) : null,
    autoSyncEnabled: source.autoSyncEnabled,
    syncFrequency: source.syncFrequency,
  };
}

export async function updateSyncSettings(
  identity: Identity,
  ref: ProjectRef,
  input: { autoSyncEnabled?: boolean; syncFrequency?: number },
) {
  if (identity.kind === "anonymous") throw unauthenticated();
  const { project } = await connectedProject(identity, ref, "owner");
  const source = await (
    await db()
  ).projectSource.update({
    where: { projectId: project.id },
    data: {
      ...(input.autoSyncEnabled !== undefined ? { autoSyncEnabled: input.autoSyncEnabled } : {}),
      ...(input.syncFrequency !== undefined ? { syncFrequency: input.syncFrequency } : {}),
    },
  });
  return { success: true as const, autoSyncEnabled: source.autoSyncEnabled, syncFrequency: source.syncFrequency };
}

export async function syncHistory(identity: Identity, ref: ProjectRef, page: { limit: number; offset: number }) {
  if (identity.kind === "anonymous") throw unauthenticated();
  const { project } = await connectedProject(identity, ref, "write");
  const prisma = await db();
  const [runs, total] = await Promise.all([
    prisma.syncRun.findMany({
      where: { projectId: project.id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: page.limit,
      skip: page.offset,
    }),
    prisma.syncRun.count({ where: { projectId: project.id } }),
  ]);
  return {
    total,
    history: runs.map((run) => ({
      id: run.id,
      trigger: run.trigger,
      status: run.status,
      fromCommit: run.fromCommit,
      toCommit: run.toCommit,
      commitsSynced: run.commitsSynced,
      error: errorOf(run),
      startedAt: run.startedAt?.toISOString() ?? null,
      finishedAt: run.finishedAt?.toISOString() ?? null,
      durationMs: run.startedAt && run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null,
    })),
  };
}
