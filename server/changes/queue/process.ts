import type { Change, Project } from "@/server/generated/prisma/client";
import { registerCache } from "@/server/caches";
import { config, withConfigSnapshot } from "@/server/config";
import { database, db, type Tx } from "@/server/db";
import { publishAfterCommit, recordEvents } from "@/server/events";
import {
  hasObject,
  openWorkspaceRepo,
  readCommit,
  RefConflictError,
  runGit,
  withProcessLock,
  type Repo,
} from "@/server/git";
import { loadPolicy, type PolicyResult } from "@/server/policy";
import { findProjectAlongside, userSignature } from "@/server/projects";
import { recordConflicts } from "../conflicts/record";
import { projectHead, workspaceTip } from "../evaluation";
import { lockChanges } from "../load";
import { writeLandingCommit, type MergeStrategy } from "../merge/commit";
import { asEvaluated, hardProtectionReasons, protectionReasons } from "../merge/gates";
import { ChangeFinalMeanwhile, landOnDefaultBranch, markMerged } from "../merge/land";
import { MergeSession } from "../merge/merge-tree";
import { removeEntries, takeEntries, type DequeueReason } from "./entries";
import { BatchRuns, claimBatch, liveChain, recordBatch, type InFlight } from "./batch";
import { BATCH_MAX, batchCap, resizeWindow, windowOf } from "./window";
import { evaluateProjected, type Verdict } from "./evaluate";
import { queueHeadAlongside, type HeadEntry } from "./head";
import { smallestFailingPrefix } from "./prefix-search";

/** Rounds per turn; each lands or removes something, so this bounds only a branch that never holds still. */
const ROUNDS_MAX = 1000;

/** Another processor landed or removed entries of this batch first: nothing of this round is recorded. */
class BatchOvertaken extends Error {}

/**
 * One processor per project at a time: on PostgreSQL a turn shared by every instance (a second
 * instance, or a second processor on the same database, finds it taken and leaves the work to its
 * holder, which a wake-up reaches too); on PGlite, one process, an in-process lock. Correctness
 * does not rest on it: a landing removes its entries and moves the branch by compare-and-swap in
 * one transaction, so an entry can land only once whatever runs.
 */
async function withQueueTurn(projectId: string, fn: () => Promise<void>): Promise<void> {
  const { turns } = await database();
  if (!turns) return withProcessLock(`queue:${projectId}`, fn);
  await turns.take(`queue:${projectId}`, fn);
}

/** Lands what the project's queue holds, batch after batch, until nothing more can move. */
export async function processQueue(projectId: string): Promise<void> {
  await withConfigSnapshot(() =>
    withQueueTurn(projectId, async () => {
      for (let round = 0; round < ROUNDS_MAX; round++) {
        const outcome = await processRound(projectId);
        // A round that moved nothing recorded nothing to publish.
        if (outcome === "idle") return;
        await publishAfterCommit();
        if (outcome === "waiting") return;
      }
    }),
  );
}

/** First-parent steps walked in-process before asking git (an agent usually adds a commit or two). */
const NEAR_HISTORY = 32;

/**
 * The workspace tip each waiting entry was last found in the history of: an entry that waits
 * round after round (approvals, a long queue) is walked again only once its workspace moved.
 * Per process, bounded; losing it costs one walk.
 */
const checkedAt = new Map<string, string>();
/** Entries are never removed when they leave the queue: the bound is a queue's waiting entries with room, not the changes landed. */
const CHECKED_MAX = 1_000;
registerCache("changes.queueCheckedTips", {
  entries: () => checkedAt.size,
  limit: CHECKED_MAX,
  bound: "cleared whole past the limit",
});

/** Whether the workspace still holds the queued commit: its tip, or an ancestor of its tip. */
async function inWorkspaceHistory(
  project: Project,
  repo: Repo,
  workspace: string | null,
  entry: HeadEntry,
): Promise<boolean> {
  const tip = workspace ? workspaceTip(project, workspace) : null;
  if (!tip) return false;
  if (checkedAt.get(entry.id) === tip) return true;
  const found = (await hasObject(repo, entry.tipSha)) && (await reachesFromTip(project, workspace!, tip, entry.tipSha));
  if (found) {
    if (checkedAt.size >= CHECKED_MAX) checkedAt.clear();
    checkedAt.set(entry.id, tip);
  }
  return found;
}

/** Whether `tipSha` is `tip` or one of its ancestors in the workspace. */
async function reachesFromTip(project: Project, workspace: string, tip: string, tipSha: string): Promise<boolean> {
  const repo = openWorkspaceRepo(project.id, workspace);
  let oid: string | undefined = tip;
  for (let step = 0; oid && step < NEAR_HISTORY; step++) {
    if (oid === tipSha) return true;
    oid = (await readCommit(repo, oid)).parent[0];
  }
  // Beyond the near history, or off the first-parent line: git knows.
  const { exitCode } = await runGit(["merge-base", "--is-ancestor", tipSha, tip], {
    gitdir: repo.gitdir,
    allowExit: [1, 128],
  });
  return exitCode === 0;
}

type Leaving = { changeId: string; reason: DequeueReason; extra?: Record<string, unknown> };

const LEAVES_AS: Partial<Record<Change["status"], DequeueReason>> = {
  merged: "merged",
  rejected: "rejected",
  needs_changes: "evaluation_failed",
};

/**
 * Sorts the head of the queue: entries that must leave (their change merged or was rejected
 * elsewhere, failed a re-evaluation, or its workspace no longer holds the queued commit) and
 * entries ready to be tested (and to land once their own evaluation passed: see `ownVerdictsPending`).
 * An entry short of approvals waits.
 */
async function triage(project: Project, repo: Repo, head: string, policy: PolicyResult, entries: HeadEntry[]) {
  const leaving: Leaving[] = [];
  const ready: HeadEntry[] = [];
  for (const entry of entries) {
    const { change, workspace } = entry;
    const leavesAs = LEAVES_AS[change.status];
    if (leavesAs) {
      leaving.push({ changeId: change.id, reason: leavesAs });
      continue;
    }
    if (!(await inWorkspaceHistory(project, repo, workspace, entry))) {
      leaving.push({ changeId: change.id, reason: "stale_workspace", extra: { tipSha: entry.tipSha } });
      continue;
    }
    const gate = {
      project,
      change: asEvaluated(change),
      workspace,
      repo,
      head,
      policy,
      reviews: entry.reviews,
      evaluationPassed: entry.evaluationPassed || change.status === "open",
      force: false,
    };
    if (protectionReasons(gate).length === 0) ready.push(entry);
  }
  return { leaving, ready };
}

interface Projected {
  entry: HeadEntry;
  commit: string;
}

type Culprit =
  | { kind: "evaluation"; entry: HeadEntry; issues: string[] }
  | { kind: "conflict"; entry: HeadEntry; head: string; files: string[] };

/**
 * Merges the ready entries one after the other on top of the head (one projected tree), stopping at
 * the first that conflicts.
 */
async function projectBatch(repo: Repo, head: string, ready: HeadEntry[]) {
  const projected: Projected[] = [];
  let conflicted: Culprit | null = null;
  let current = head;
  const session = new MergeSession(repo);
  try {
    for (const entry of ready) {
      const outcome = await session.merge(current, entry.tipSha);
      if (!outcome.clean) {
        conflicted = { kind: "conflict", entry, head: current, files: outcome.conflictingFiles };
        break;
      }
      const signature = userSignature(entry.enqueuer ?? "svc-forge");
      const change = { ...entry.change, tipSha: entry.tipSha };
      current = await writeLandingCommit(session.repo, {
        tree: outcome.tree,
        head: current,
        change,
        workspace: entry.workspace,
        strategy: entry.strategy as MergeStrategy,
        signature,
      });
      projected.push({ entry, commit: current });
    }
    session.flush();
  } finally {
    session.close();
  }
  return { projected, conflicted };
}

/** Whether a change of the batch is still being evaluated on its own (queued speculatively). */
const ownVerdictsPending = (projected: Projected[]) => projected.some((item) => item.entry.change.status === "open");

/**
 * Evaluates the whole projected batch once. When it fails, searches the prefixes, several side by
 * side (the smallest failing prefix ends with the culprit): what is ahead of the culprit lands.
 * Null while a verdict it needs is still running: the same walk, taken again once it ended, reads
 * the verdicts it had. A batch holding changes whose own evaluation still runs waits for it
 * whatever its verdict: they land only once accepted, and one that fails leaves (the batch is
 * projected again without it) before any search is spent on finding it.
 */
async function findCulprit(
  projected: Projected[],
  evaluate: (index: number) => Promise<Verdict | null>,
): Promise<{ landed: Projected[]; culprit: Culprit | null } | null> {
  if (projected.length === 0) return { landed: projected, culprit: null };
  const whole = await evaluate(projected.length - 1);
  if (!whole || ownVerdictsPending(projected)) return null;
  if (whole.passed) return { landed: projected, culprit: null };
  const failing = await smallestFailingPrefix(
    { index: projected.length - 1, issues: whole.issues },
    evaluate,
    config.runnerConcurrency,
  );
  if (!failing) return null;
  const culprit: Culprit = { kind: "evaluation", entry: projected[failing.index].entry, issues: failing.issues };
  return { landed: projected.slice(0, failing.index), culprit };
}

/** Consecutive landings by the same enqueuer and strategy, recorded together. */
function runsOf(landed: Projected[]): Projected[][] {
  const runs: Projected[][] = [];
  for (const item of landed) {
    const last = runs.at(-1)?.[0];
    if (last && last.entry.enqueuedById === item.entry.enqueuedById && last.entry.strategy === item.entry.strategy)
      runs.at(-1)!.push(item);
    else runs.push([item]);
  }
  return runs;
}

/** What a culprit leaves behind, in the landing's transaction: needs_changes, or a conflict record. */
async function recordCulprit(tx: Tx, project: Project, culprit: Culprit): Promise<Leaving> {
  const change = { ...culprit.entry.change, tipSha: culprit.entry.tipSha };
  if (culprit.kind === "evaluation") {
    await tx.change.updateMany({
      where: { id: change.id, status: { in: ["accepted", "approved", "promoted", "open"] } },
      data: { status: "needs_changes" },
    });
    return { changeId: change.id, reason: "evaluation_failed", extra: { issues: culprit.issues } };
  }
  const [conflictId] = await recordConflicts(tx, project.id, [{ change, head: culprit.head, files: culprit.files }]);
  return { changeId: change.id, reason: "conflict", extra: { conflictId, conflictingFiles: culprit.files } };
}

/**
 * Lands a batch through the one door: the landed entries leave the queue (all of them, or the
 * round is void), their changes become merged as if their enqueuers merged them, the culprit
 * leaves with its reason, and the rest wait again (but those of the batches above, still tested), in the transaction that moves the branch, with
 * the batch's runs of this turn and its record taken out.
 */
async function landBatch(
  project: Project,
  repo: Repo,
  head: string,
  ready: HeadEntry[],
  batch: { landed: Projected[]; culprit: Culprit | null },
  runs: BatchRuns,
  inFlight: boolean,
  stacked: Set<string>,
) {
  const { landed, culprit } = batch;
  const models = new Map(
    landed.flatMap(({ entry }) => (entry.change.agentId ? [[entry.change.agentId, entry.agentModel] as const] : [])),
  );
  const commit = landed.at(-1)?.commit ?? head;
  const actorFor = (entry: HeadEntry) => `user:${entry.enqueuedById}`;
  const mover = landed[0]?.entry ?? culprit?.entry ?? ready[0];
  await landOnDefaultBranch(
    project,
    repo,
    { head, commit, changeIds: landed.map((l) => l.entry.changeId), actor: actorFor(mover), cause: "queue" },
    async (tx) => {
      await lockChanges(tx, [...landed.map((l) => l.entry.changeId), ...(culprit ? [culprit.entry.changeId] : [])]);
      if (inFlight && !(await claimBatch(tx, runs.batchId))) throw new BatchOvertaken();
      await runs.store(tx);
      const merged = landed.map((l) => ({
        changeId: l.entry.changeId,
        reason: "merged" as const,
        extra: { commit: l.commit },
      }));
      const { gone, events } = await takeEntries(tx, project.id, merged, actorFor(mover));
      if (gone.length !== landed.length) throw new BatchOvertaken();
      for (const run of runsOf(landed)) {
        const { entry } = run[0];
        const changes = run.map((l) => ({ change: { ...l.entry.change, tipSha: l.entry.tipSha }, commit: l.commit }));
        events.push(
          ...(await markMerged(tx, {
            project,
            merged: changes,
            mergedById: entry.enqueuedById,
            strategy: entry.strategy,
            actor: actorFor(entry),
            agentModels: models,
          })),
        );
      }
      // The landing's events in one INSERT: every change.dequeued, then every change.merged.
      await recordEvents(tx, events);
      if (culprit) await removeEntries(tx, project.id, [await recordCulprit(tx, project, culprit)], "system");
      const done = new Set([...landed.map((l) => l.entry.id), ...(culprit ? [culprit.entry.id] : [])]);
      const waiting = ready.filter((e) => !done.has(e.id) && !stacked.has(e.id)).map((e) => e.id);
      if (waiting.length > 0)
        await tx.queueEntry.updateMany({ where: { id: { in: waiting } }, data: { state: "waiting" } });
    },
    { timeout: 60_000 },
  );
}

/**
 * The batch a turn works on: the first of the chain in flight (see `liveChain`), else the ready
 * entries projected anew on the head.
 */
async function batchOf(projectId: string, repo: Repo, head: string, ready: HeadEntry[], chain: InFlight[]) {
  const [first] = chain;
  if (first) {
    const byId = new Map(ready.map((entry) => [entry.id, entry]));
    return {
      projected: first.items.map((item) => ({ entry: byId.get(item.entryId)!, commit: item.commit })),
      conflicted: null,
      runs: await BatchRuns.of(projectId, repo, head, first.id),
      inFlight: true,
    };
  }
  const prisma = await db();
  // Marked while the batch builds: the round does not wait for the statement (on the embedded
  // database it waits behind a fleet's: 100-200 ms a round, measured), only for its end before the
  // next mark. A failure is kept for that wait (a rejection nobody awaits yet would end the process).
  const marking = prisma.queueEntry
    .updateMany({ where: { id: { in: ready.map((e) => e.id) } }, data: { state: "testing" } })
    .then(
      () => null,
      (error: unknown) => ({ error }),
    );
  const { projected, conflicted } = await projectBatch(repo, head, ready.slice(0, batchCap(projectId)));
  const marked = await marking;
  if (marked) throw marked.error;
  return { projected, conflicted, runs: await BatchRuns.of(projectId, repo, head), inFlight: false };
}

/**
 * Projects the ready entries no batch holds on the last commit of the chain and queues its runs:
 * they are tested while the batches below still are, and land once those landed whole (else the
 * batch is dropped and they are projected again). An entry that conflicts with what is below stops
 * the projection: it waits to be tried on the branch itself, where its conflict is recorded.
 */
async function stackBatch(project: Project, repo: Repo, chain: InFlight[], ready: HeadEntry[]): Promise<void> {
  const held = new Set(chain.flatMap((batch) => batch.items.map((item) => item.entryId)));
  const rest = ready.filter((entry) => !held.has(entry.id));
  if (rest.length === 0) return;
  const base = chain.at(-1)!.items.at(-1)!.commit;
  const { projected } = await projectBatch(repo, base, rest.slice(0, batchCap(project.id)));
  if (projected.length === 0) return;
  const runs = await BatchRuns.of(project.id, repo, base);
  const last = projected.at(-1)!;
  const policy = await loadPolicy(repo, base);
  await evaluateProjected(project, repo, policy, base, last.commit, last.entry.changeId, runs.verdicts);
  const items = projected.map(({ entry, commit }) => ({ entryId: entry.id, changeId: entry.changeId, commit }));
  const tested = new Set(items.map((item) => item.entryId));
  const waiting = rest.flatMap((entry) => (tested.has(entry.id) ? [] : [entry.id]));
  await recordBatch(repo, project.id, { id: runs.batchId, baseSha: base, items }, runs, waiting);
}

/** What a round did: moved entries (another may follow), queued runs to wait for, or nothing. */
type RoundOutcome = "moved" | "waiting" | "idle";

/** One batch of the project's queue. */
async function processRound(projectId: string): Promise<RoundOutcome> {
  const prisma = await db();
  const { project, alongside: entries } = await findProjectAlongside({ id: projectId }, queueHeadAlongside(BATCH_MAX));
  if (!project || project.deletingAt || !entries?.length) return "idle";
  const { repo, head } = projectHead(project);
  const policy = await loadPolicy(repo, head);
  if (hardProtectionReasons(policy).length > 0) return "idle";
  const { leaving, ready } = await triage(project, repo, head, policy, entries);
  if (leaving.length > 0) await prisma.$transaction((tx) => removeEntries(tx, projectId, leaving, "system"));
  if (ready.length === 0) return leaving.length > 0 ? "moved" : "idle";
  const { chain, dropped } = await liveChain(projectId, head, new Set(ready.map((entry) => entry.id)));
  if (dropped > 0) resizeWindow(projectId, "halve");
  const { projected, conflicted, runs, inFlight } = await batchOf(projectId, repo, head, ready, chain);
  const evaluated = await findCulprit(projected, (index) =>
    evaluateProjected(
      project,
      repo,
      policy,
      head,
      projected[index].commit,
      projected[index].entry.changeId,
      runs.verdicts,
    ),
  );
  if (!evaluated) {
    // Background runs decide: recorded with the batch, the turn ends; their end wakes the queue.
    if (inFlight) {
      await prisma.$transaction((tx) => runs.store(tx));
      if (chain.length < windowOf(projectId)) await stackBatch(project, repo, chain, ready);
    } else {
      const tested = new Set(projected.map((item) => item.entry.id));
      const items = projected.map(({ entry, commit }) => ({ entryId: entry.id, changeId: entry.changeId, commit }));
      await recordBatch(
        repo,
        projectId,
        { id: runs.batchId, baseSha: head, items },
        runs,
        ready.flatMap((e) => (tested.has(e.id) ? [] : [e.id])),
      );
    }
    return "waiting";
  }
  // A conflict follows what was evaluated: it is the culprit only when everything ahead of it lands.
  const batch = { landed: evaluated.landed, culprit: evaluated.culprit ?? conflicted };
  if (batch.landed.length > 0)
    await prisma.queueEntry.updateMany({
      where: { id: { in: batch.landed.map((l) => l.entry.id) } },
      data: { state: "merging" },
    });
  try {
    const stacked = new Set(chain.slice(1).flatMap((above) => above.items.map((item) => item.entryId)));
    await landBatch(project, repo, head, ready, batch, runs, inFlight, stacked);
    if (!batch.culprit) resizeWindow(projectId, "grow");
  } catch (error) {
    // The branch moved (a direct merge or push), another processor got there first, or a change of
    // the batch was merged directly meanwhile: the next round re-reads the queue and the head.
    if (!(
      error instanceof RefConflictError ||
      error instanceof BatchOvertaken ||
      error instanceof ChangeFinalMeanwhile
    ))
      throw error;
  }
  return "moved";
}
