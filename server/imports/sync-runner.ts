import type { Project, ProjectSource, SyncRun } from "@/server/generated/prisma/client";
import { db } from "@/server/db";
import { publishAfterCommit, recordEvent } from "@/server/events";
import { RefConflictError, branchRef, moveBranch, openProjectRepo, readRef, runGit, type Repo } from "@/server/git";
import { SYNC_CAS_ATTEMPTS, SYNC_DEEPEN_ATTEMPTS, SYNC_DEEPEN_STEP } from "@/server/limits";
import { ProviderError } from "@/server/providers";
import { countCommits, fetchUpstream, isShallow, mergeBase } from "./upstream";
import { log } from "@/server/log";

/** A sync that cannot reconcile the two histories: nothing moved. */
class SyncDiverged extends Error {}

const MERGER = {
  GIT_AUTHOR_NAME: "svc-forge",
  GIT_AUTHOR_EMAIL: "sync@svc-forge.invalid",
  GIT_COMMITTER_NAME: "svc-forge",
  GIT_COMMITTER_EMAIL: "sync@svc-forge.invalid",
};

/** A merge base of the local and upstream tips, deepening a shallow history a few times before giving up. */
async function relatedBase(repo: Repo, source: ProjectSource, local: string, upstream: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const base = await mergeBase(repo, local, upstream);
    if (base) return base;
    if (attempt >= SYNC_DEEPEN_ATTEMPTS || !(await isShallow(repo)))
      throw new SyncDiverged("The local and upstream histories share no commit");
    await fetchUpstream(repo, source, { deepen: attempt + 1 === SYNC_DEEPEN_ATTEMPTS ? "all" : SYNC_DEEPEN_STEP });
  }
}

/** A merge commit of upstream into local when merge-ort merges them cleanly (no worktree). */
async function mergeUpstream(repo: Repo, source: ProjectSource, local: string, upstream: string): Promise<string> {
  await relatedBase(repo, source, local, upstream);
  const { stdout, exitCode } = await runGit(["merge-tree", "--write-tree", local, upstream], {
    gitdir: repo.gitdir,
    allowExit: [1],
  });
  if (exitCode === 1) throw new SyncDiverged("Local and upstream changes conflict");
  const tree = stdout.split("\n", 1)[0].trim();
  const message = `Merge upstream ${source.owner}/${source.repo}@${source.branch} (${upstream.slice(0, 12)})`;
  const commit = await runGit(["commit-tree", tree, "-p", local, "-p", upstream, "-m", message], {
    gitdir: repo.gitdir,
    env: MERGER,
  });
  return commit.stdout.trim();
}

/**
 * Moves the default branch to include `upstream`: nothing when it already does, a fast-forward
 * when it has nothing the source lacks, otherwise a clean merge commit. Every move goes through the
 * one door as any other write (compare-and-swap under the project lock, deployments requested);
 * losing it to a concurrent merge recomputes from the new tip, so neither side's commits are lost.
 */
async function reconcile(
  repo: Repo,
  source: ProjectSource,
  project: Project,
  upstream: string,
): Promise<{ from: string; to: string }> {
  const ref = branchRef(project.defaultBranch);
  const move = (from: string | null, to: string) =>
    moveBranch(repo, { project, workspace: null, ref, from, to, actor: "system", cause: "sync", changeIds: [] });
  for (let attempt = 1; ; attempt++) {
    const local = readRef(repo, ref);
    if (!local) {
      await move(null, upstream);
      return { from: upstream, to: upstream };
    }
    // One merge base answers both questions: upstream already in local, or local behind upstream.
    const base = local === upstream ? local : await mergeBase(repo, local, upstream);
    if (base === upstream) return { from: local, to: local };
    const target = base === local ? upstream : await mergeUpstream(repo, source, local, upstream);
    try {
      await move(local, target);
      return { from: local, to: target };
    } catch (error) {
      if (!(error instanceof RefConflictError) || attempt >= SYNC_CAS_ATTEMPTS) throw error;
    }
  }
}

async function claimSync(syncRunId: string): Promise<SyncRun | null> {
  const prisma = await db();
  const { count } = await prisma.syncRun.updateMany({
    where: { id: syncRunId, status: "queued" },
    data: { status: "running", startedAt: new Date() },
  });
  return count ? prisma.syncRun.findUnique({ where: { id: syncRunId } }) : null;
}

async function failSync(run: SyncRun, code: string, message: string): Promise<void> {
  await (
    await db()
  ).syncRun.updateMany({
    where: { id: run.id, status: "running" },
    data: { status: "failed", errorCode: code, errorMessage: message, finishedAt: new Date() },
  });
}

/**
 * The sync job's work: fetch the source branch into refs/svc/upstream/<branch>, reconcile the
 * default branch with it, then record the run, the source's last synced commit and
 * `sync.completed` in one transaction. SYNC_DIVERGED when the histories cannot be reconciled.
 */
export async function runSync(syncRunId: string): Promise<{ status: string; code?: string }> {
  const run = await claimSync(syncRunId);
  if (!run) return { status: "skipped" };
  const prisma = await db();
  const project = await prisma.project.findUniqueOrThrow({ where: { id: run.projectId } });
  const source = await prisma.projectSource.findUniqueOrThrow({ where: { projectId: run.projectId } });
  const repo = openProjectRepo(project.id);
  try {
    const upstream = await fetchUpstream(repo, source);
    const { from, to } = await reconcile(repo, source, project, upstream);
    const commitsSynced =
      upstream === source.lastSyncedCommit ? 0 : await countCommits(repo, source.lastSyncedCommit, upstream);
    const now = new Date();
    await prisma.$transaction(async (tx) => {
      await tx.syncRun.update({
        where: { id: run.id },
        data: { status: "succeeded", fromCommit: from, toCommit: to, commitsSynced, finishedAt: now },
      });
      await tx.projectSource.update({
        where: { projectId: project.id },
        data: { lastSyncedCommit: upstream, latestCommit: upstream, commitsBehind: 0, lastSyncAt: now },
      });
      if (commitsSynced > 0) {
        await recordEvent(tx, {
          projectId: project.id,
          kind: "sync.completed",
          actor: "system",
          data: { syncRunId: run.id, trigger: run.trigger, fromCommit: from, toCommit: to, commitsSynced },
        });
      }
    });
    await publishAfterCommit();
    return { status: "succeeded" };
  } catch (error) {
    const [code, message] =
      error instanceof SyncDiverged
        ? ["SYNC_DIVERGED", error.message]
        : error instanceof ProviderError
          ? [error.category, error.message]
          : ["GIT_ERROR", (error as Error).message];
    if (code === "GIT_ERROR") log().error({ err: error }, "imports: sync failed");
    await failSync(run, code, message);
    return { status: "failed", code };
  }
}
