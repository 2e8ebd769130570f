import { randomUUID } from "node:crypto";
import type { ProjectImport, ProjectSource } from "@/server/generated/prisma/client";
import type { ImportPhase } from "@/server/generated/prisma/enums";
import { db } from "@/server/db";
import { publishAfterCommit, recordEvent } from "@/server/events";
import {
  branchRef,
  initImportStaging,
  openImportStaging,
  listRefs,
  openProjectRepo,
  readRef,
  removeImportStaging,
  removeRepo,
  replaceProjectRepo,
  resetProjectRepo,
  spawnGit,
  fetchIntoRef,
  GitCommandError,
  type GitOutput,
  withRepoLock,
  type Repo,
} from "@/server/git";
import { IMPORT_HEARTBEAT_MS } from "@/server/limits";
import { setImportPending } from "@/server/projects";
import {
  ProviderError,
  classifyGitFailure,
  getRepository,
  gitFailureMessage,
  providerGitEnv,
  sourceGitUrl,
  type FailureCategory,
} from "@/server/providers";
import { completedProgress, parseFetchProgress, type TransferProgress } from "./progress";
import { keepStartedCheck, takeStartedCheck } from "./started-checks";
import { log } from "@/server/log";

/** The runner no longer holds the import (a re-run took it over, or stall recovery re-queued it). */
class LostClaim extends Error {}

/**
 * Keeps a running import's heartbeat and progress in its row, conditional on holding it: when the
 * write finds the row cancelling, or held by another runner, `signal` aborts (which kills git).
 */
export class Heartbeat {
  readonly controller = new AbortController();
  reason: "cancel" | "lost" | null = null;
  phase: ImportPhase = "cloning";
  progress: TransferProgress | null = null;
  private readonly timer: NodeJS.Timeout;
  private beating: Promise<void> | null = null;

  constructor(
    private readonly importId: string,
    private readonly runner: string,
  ) {
    this.timer = setInterval(() => void this.beat(), IMPORT_HEARTBEAT_MS);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  async beat(): Promise<void> {
    if (this.beating || this.reason) return;
    this.beating = (async () => {
      const prisma = await db();
      const { count } = await prisma.projectImport.updateMany({
        where: { id: this.importId, runner: this.runner, status: "running" },
        data: {
          updatedAt: new Date(),
          phase: this.phase,
          receivedObjects: this.progress?.receivedObjects ?? null,
          totalObjects: this.progress?.totalObjects ?? null,
        },
      });
      if (count > 0) return;
      this.reason = await fateOf(this.importId, this.runner);
      this.controller.abort();
    })()
      .catch((error) => log().error({ err: error }, "imports: heartbeat failed"))
      .finally(() => (this.beating = null));
    await this.beating;
  }

  async setPhase(phase: ImportPhase): Promise<void> {
    this.phase = phase;
    // A beat in flight read the phase before: wait it out, then write the new one.
    while (this.beating) await this.beating;
    await this.beat();
    this.assertHeld();
  }

  assertHeld(): void {
    if (this.reason) throw new LostClaim(this.reason);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Why a runner no longer holds its import: the owner asked to cancel it, or another runner took it. */
async function fateOf(importId: string, runner: string): Promise<"cancel" | "lost"> {
  const row = await (
    await db()
  ).projectImport.findUnique({ where: { id: importId }, select: { runner: true, status: true } });
  return row?.runner === runner && row.status === "cancelling" ? "cancel" : "lost";
}

/** Takes the import for this runner: queued under this lease, or running under it (a re-run after a crash). */
async function claim(importId: string, lease: number, runner: string): Promise<ProjectImport | null> {
  const prisma = await db();
  const now = new Date();
  const { count } = await prisma.projectImport.updateMany({
    where: { id: importId, lease, status: { in: ["queued", "running"] } },
    data: {
      status: "running",
      runner,
      phase: "cloning",
      receivedObjects: null,
      totalObjects: null,
      startedAt: now,
      updatedAt: now,
    },
  });
  return count ? prisma.projectImport.findUnique({ where: { id: importId } }) : null;
}

function storageFailure(error: unknown): ProviderError | null {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOSPC" || code === "EDQUOT" || code === "EROFS"
    ? new ProviderError("STORAGE_ERROR", `Storage failed: ${(error as Error).message}`)
    : null;
}

/** Fetches the source branch (and the tags pointing into it) into the staging repository; `signal` kills git. */
async function fetchSource(
  staging: Repo,
  source: ProjectSource,
  heartbeat: Heartbeat,
  signal: AbortSignal,
): Promise<string> {
  const depth = source.depth ? ["--depth", String(source.depth)] : [];
  const result = await fetchIntoRef(staging, sourceGitUrl(source), branchRef(source.branch), branchRef(source.branch), {
    args: ["--progress", ...depth],
    env: providerGitEnv(),
    signal,
    onStderrLine: (line) => {
      const progress = parseFetchProgress(line, heartbeat.progress);
      if (progress) heartbeat.progress = progress;
    },
  });
  heartbeat.assertHeld();
  if (result.exitCode !== 0)
    throw new ProviderError(classifyGitFailure(result.stderr), gitFailureMessage(result.stderr));
  heartbeat.progress = completedProgress(heartbeat.progress);
  const tip = readRef(staging, branchRef(source.branch));
  if (!tip) throw new ProviderError("NOT_FOUND", `Branch ${source.branch} was not found on the source`);
  return tip;
}

/**
 * The fetch with the provider's REST check of the source beside it, not before it (that would add a
 * round trip to every import). A refusal of the check (a rejected token, a missing repository, a
 * rate limit, a timeout) stops git and is the failure, as it names the cause more plainly than git;
 * otherwise git's own failure is. A cancelled or lost import does not wait for the check.
 */
async function checkAndFetchSource(staging: Repo, source: ProjectSource, heartbeat: Heartbeat): Promise<string> {
  const refused = new AbortController();
  const check = getRepository(source).then(
    () => null,
    (error: unknown) => {
      refused.abort();
      // getRepository's refusals are DomainErrors; anything else is passed on as thrown.
      return error as Error;
    },
  );
  let tip: string;
  try {
    tip = await fetchSource(staging, source, heartbeat, AbortSignal.any([heartbeat.signal, refused.signal]));
  } catch (error) {
    if (heartbeat.reason) throw error;
    throw (await check) ?? error;
  }
  const refusal = await check;
  if (refusal) throw refusal;
  return tip;
}

// Each entry of the tip's tree, mode and path only (a quarter of ls-tree's default output).
const TREE_MODES = ["ls-tree", "-r", "-z", "--full-tree", "--format=%(objectmode) %(path)"];
// The first gitlink entry of that listing, or a root .gitmodules.
const SUBMODULE_ENTRY = /(?:^|\0)(?:160000 ([^\0]+)|\d+ (\.gitmodules))\0/;

/** Submodules are unsupported: a gitlink anywhere in the tip's tree, or a root .gitmodules (from a TREE_MODES listing). */
async function assertNoSubmodules(listing: Promise<GitOutput>): Promise<void> {
  const { exitCode, stdout, stderr } = await listing;
  if (exitCode !== 0) throw new GitCommandError(TREE_MODES, exitCode, stderr);
  const found = SUBMODULE_ENTRY.exec(stdout.toString("utf8"));
  if (found)
    throw new ProviderError(
      "UNSUPPORTED_CONTENT",
      `Git submodules are unsupported (${found[1] ? `gitlink ${found[1]}` : "root .gitmodules"})`,
    );
}

/** Starts the submodule check for the swap step (see started-checks.ts). */
function startSubmoduleCheck(staging: Repo, listing: Promise<GitOutput>): void {
  const check = assertNoSubmodules(listing);
  check.catch(() => undefined); // awaited, and its failure reported, by the swap step
  keepStartedCheck(staging.gitdir, check);
}

function submoduleCheck(staging: Repo, tip: string): Promise<void> {
  const started = takeStartedCheck(staging.gitdir);
  const check = started ?? assertNoSubmodules(spawnGit([...TREE_MODES, tip], { gitdir: staging.gitdir }));
  check.catch(() => undefined); // awaited by finalize, unless the swap fails before it gets there
  return check;
}

/**
 * Puts the staged repository in place and completes the import in one transaction under the
 * project lock: the row (only while this runner holds it), the project's default branch and
 * import flag, the source's last synced commit and `project.imported`. The submodule check is
 * awaited before the swap of repositories, the transaction's last step, so a failure before it
 * (submodules included) rolls back and leaves the empty repository.
 */
async function finalize(
  row: ProjectImport,
  runner: string,
  source: ProjectSource,
  staging: Repo,
  fetched: Pick<FetchedImport, "tip" | "progress">,
  submodulesChecked: Promise<void>,
): Promise<void> {
  const { tip, progress } = fetched;
  const prisma = await db();
  const now = new Date();
  await prisma.$transaction(
    (tx) =>
      withRepoLock(
        openProjectRepo(row.projectId),
        async () => {
          const { count } = await tx.projectImport.updateMany({
            where: { id: row.id, runner, status: "running" },
            data: {
              status: "completed",
              phase: null,
              completedAt: now,
              updatedAt: now,
              receivedObjects: progress?.receivedObjects ?? null,
              totalObjects: progress?.totalObjects ?? null,
            },
          });
          if (count === 0) throw new LostClaim("lost");
          await setImportPending(tx, row.projectId, false, source.branch);
          await tx.projectSource.update({
            where: { projectId: row.projectId },
            data: { lastSyncedCommit: tip, lastSyncAt: now },
          });
          await recordEvent(tx, {
            projectId: row.projectId,
            kind: "project.imported",
            actor: row.requestedById ? `user:${row.requestedById}` : "system",
            data: {
              importId: row.id,
              source: source.url,
              branch: source.branch,
              commit: tip,
              tags: listRefs(staging).tags.length,
            },
          });
          await submodulesChecked;
          replaceProjectRepo(row.projectId, staging);
        },
        { tx },
      ),
    { maxWait: 30_000, timeout: 120_000 },
  );
}

/** Ends an import this runner holds as failed (with `import.failed`) or cancelled. */
async function endImport(
  row: ProjectImport,
  runner: string,
  status: "failed" | "cancelled",
  category: FailureCategory,
  message: string,
): Promise<void> {
  const prisma = await db();
  const now = new Date();
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.projectImport.updateMany({
      where: { id: row.id, runner, status: { in: ["running", "cancelling"] } },
      data: {
        status,
        failureCategory: category,
        error: status === "failed" ? message : null,
        phase: null,
        completedAt: now,
        updatedAt: now,
      },
    });
    if (count && status === "failed") {
      await recordEvent(tx, {
        projectId: row.projectId,
        kind: "import.failed",
        actor: "system",
        data: { importId: row.id, failureCategory: category },
      });
    }
  });
}

/** How an import attempt ended (the job's output). */
export type ImportOutcome = {
  status: "completed" | "skipped" | "superseded" | "cancelled" | "failed";
  category?: FailureCategory;
};

/** What the fetch step hands to the swap step: the runner that holds the import and what it staged. */
export type FetchedImport = { status: "fetched"; runner: string; tip: string; progress: TransferProgress | null };

/**
 * Ends an attempt that threw: nothing when another runner took the import over, `cancelled` when
 * its owner asked, otherwise `failed` with the category of what happened (and `import.failed`).
 */
async function concludeFailure(
  row: ProjectImport,
  runner: string,
  error: unknown,
  reason: "cancel" | "lost" | null,
): Promise<ImportOutcome> {
  const fate = reason ?? (error instanceof LostClaim ? await fateOf(row.id, runner) : null);
  if (fate === "lost") return { status: "superseded" };
  if (fate === "cancel") {
    await endImport(row, runner, "cancelled", "CANCELLED", "Cancelled");
    return { status: "cancelled", category: "CANCELLED" };
  }
  const failure =
    error instanceof ProviderError
      ? error
      : (storageFailure(error) ?? new ProviderError("UNKNOWN_ERROR", (error as Error).message));
  if (failure.category === "UNKNOWN_ERROR")
    log().error({ importId: row.id, err: error }, "imports: import failed unexpectedly");
  await endImport(row, runner, "failed", failure.category, failure.message);
  await publishAfterCommit();
  return { status: "failed", category: failure.category };
}

/**
 * The import job's first step: claim, fetch into a staging repository with git's progress in the
 * row while the source is checked over REST, then start the submodule check (phase `checking`),
 * which the swap step awaits. The staging repository is kept for the swap step, so a restart
 * after this step resumes there instead of fetching again. A re-run of this step (the process
 * died mid-clone) takes the import over and fetches from scratch.
 */
export async function fetchImport(importId: string, lease: number): Promise<FetchedImport | ImportOutcome> {
  const runner = randomUUID();
  const row = await claim(importId, lease, runner);
  if (!row) return { status: "skipped" };
  const source = await (await db()).projectSource.findUniqueOrThrow({ where: { projectId: row.projectId } });
  const heartbeat = new Heartbeat(importId, runner);
  let staging: Repo | null = null;
  try {
    // Nothing but an import writes an import-pending project: what a dead runner left goes.
    const project = openProjectRepo(row.projectId);
    if (listRefs(project).branches.length > 0) resetProjectRepo(row.projectId, source.branch);
    removeImportStaging(row.projectId);
    staging = initImportStaging(row.projectId, runner, source.branch);
    const tip = await checkAndFetchSource(staging, source, heartbeat);
    await heartbeat.setPhase("checking");
    startSubmoduleCheck(staging, spawnGit([...TREE_MODES, tip], { gitdir: staging.gitdir }));
    staging = null;
    return { status: "fetched", runner, tip, progress: heartbeat.progress };
  } catch (error) {
    heartbeat.stop();
    return await concludeFailure(row, runner, error, heartbeat.reason);
  } finally {
    heartbeat.stop();
    if (staging) removeRepo(staging);
  }
}

/** Phase `finalizing`, while this runner still holds the import (a cancel between the steps is honoured here). */
async function enterFinalizing(importId: string, runner: string): Promise<void> {
  const { count } = await (
    await db()
  ).projectImport.updateMany({
    where: { id: importId, runner, status: "running" },
    data: { phase: "finalizing", updatedAt: new Date() },
  });
  if (count === 0) throw new LostClaim("lost");
}

/**
 * The import job's second step: swaps the staged repository in and completes the import once no
 * submodule was found, as the runner that fetched it. Whatever happens, the project's repository
 * is either untouched (empty) or the whole import, and no staging repository is left behind.
 */
export async function swapImport(importId: string, fetched: FetchedImport): Promise<ImportOutcome> {
  const prisma = await db();
  const row = await prisma.projectImport.findUnique({ where: { id: importId } });
  if (!row) return { status: "skipped" };
  const staging = openImportStaging(row.projectId, fetched.runner);
  try {
    if (!staging) throw new LostClaim("lost");
    const submodulesChecked = submoduleCheck(staging, fetched.tip);
    await enterFinalizing(importId, fetched.runner);
    const source = await prisma.projectSource.findUniqueOrThrow({ where: { projectId: row.projectId } });
    await finalize(row, fetched.runner, source, staging, fetched, submodulesChecked);
    await publishAfterCommit();
    return { status: "completed" };
  } catch (error) {
    if (staging) removeRepo(staging);
    return concludeFailure(row, fetched.runner, error, null);
  }
}
