import { randomUUID } from "node:crypto";
import type { EvalRun, Prisma } from "@/server/generated/prisma/client";
import { announceOnCommit, db, type Tx } from "@/server/db";
import { pinRef, type Repo } from "@/server/git";
import { plannedRunFields, plannedRuns } from "../runs/plan";
import { cancelBatchRuns, isUnfinished, RUNS_TOPIC } from "../runs/store";
import type { BackgroundResult, BackgroundVerdicts } from "./evaluate";

/**
 * The merge queue's batches in flight (QueueBatch): what a turn that queued background runs for
 * its projected commits leaves for the turn their end wakes. They form a chain: the first is
 * projected on the branch head, each next one on the last projected commit of the one below (GitHub's
 * build concurrency: a batch is tested while the one below still is). None holds a lock: a turn
 * lands the first once its verdict is in, if its base is still the branch head and its entries are
 * still ready, and drops it (with everything above it) otherwise; the entries are projected again.
 * Landing deletes the batch in the landing's transaction, so a batch lands once whatever instance
 * resumes it.
 */

/** An entry of a batch and the projected commit of the batch's prefix that ends with it (a type: stored as JSON). */
export type BatchItem = {
  entryId: string;
  changeId: string;
  commit: string;
};

export interface InFlight {
  id: string;
  baseSha: string;
  items: BatchItem[];
}

/**
 * The project's chain of batches in flight that can still land as tested, bottom first: the one
 * on `head`, the one on its last commit, and so on while each one's entries are all `ready`. Every
 * other batch of the project is dropped (how many: a failure below cut the chain).
 */
export async function liveChain(
  projectId: string,
  head: string,
  ready: Set<string>,
): Promise<{ chain: InFlight[]; dropped: number }> {
  const rows = await (await db()).queueBatch.findMany({ where: { projectId } });
  const byBase = new Map(rows.map((row) => [row.baseSha, row]));
  const chain: InFlight[] = [];
  for (let row = byBase.get(head); row;) {
    const items = row.entries as unknown as BatchItem[];
    if (!items.every((item) => ready.has(item.entryId))) break;
    chain.push({ id: row.id, baseSha: row.baseSha, items });
    row = byBase.get(items.at(-1)!.commit);
  }
  const kept = new Set(chain.map((batch) => batch.id));
  const stale = rows.filter((row) => !kept.has(row.id)).map((row) => row.id);
  if (stale.length > 0) await dropBatches(stale);
  return { chain, dropped: stale.length };
}

/** Forgets batches that can no longer land as tested; their unfinished runs are cancelled. */
async function dropBatches(batchIds: string[]): Promise<void> {
  await (
    await db()
  ).$transaction(async (tx) => {
    await tx.queueBatch.deleteMany({ where: { id: { in: batchIds } } });
    for (const batchId of batchIds) await cancelBatchRuns(tx, batchId);
  });
}

/**
 * Records a new batch in flight (the top of the chain) with the runs its turn queued, and puts the
 * ready entries no batch holds back to `waiting`; its last projected commit is pinned first (safe
 * from gc while it waits, and with it every batch's below).
 */
export async function recordBatch(
  repo: Repo,
  projectId: string,
  batch: InFlight,
  runs: BatchRuns,
  waiting: string[],
): Promise<void> {
  await pinRef(repo, "refs/svc/queue/batch", batch.items.at(-1)!.commit);
  await (
    await db()
  ).$transaction(async (tx) => {
    await tx.queueBatch.create({
      data: { id: batch.id, projectId, baseSha: batch.baseSha, entries: batch.items },
    });
    await runs.store(tx);
    // A batch stacked on another takes entries that were waiting.
    const testing = batch.items.map((item) => item.entryId);
    await tx.queueEntry.updateMany({ where: { id: { in: testing }, state: "waiting" }, data: { state: "testing" } });
    if (waiting.length > 0)
      await tx.queueEntry.updateMany({ where: { id: { in: waiting } }, data: { state: "waiting" } });
  });
}

/** Takes the batch out as it lands (in the landing's transaction); false when someone else did. */
export async function claimBatch(tx: Tx, batchId: string): Promise<boolean> {
  return (await tx.queueBatch.deleteMany({ where: { id: batchId } })).count === 1;
}

type RunRow = Pick<EvalRun, "tipSha" | "evaluator" | "status" | "findings">;
type NewRun = RunRow & Record<string, unknown>;

const resultOf = (run: RunRow) => run as unknown as BackgroundResult;

/**
 * The background runs of a batch in one turn: those earlier turns queued (by projected commit),
 * and those this turn plans for a commit that has none yet. A sandbox run of a tree and settings
 * already tested reuses that run's end (`reusedFrom`): a sub-batch of a bisection, or a batch
 * projected again onto the same tree, costs no run.
 */
export class BatchRuns {
  private readonly planned: NewRun[] = [];

  private constructor(
    readonly batchId: string,
    private readonly projectId: string,
    private readonly repo: Repo,
    private readonly head: string,
    private readonly known: RunRow[],
  ) {}

  /** The runs of a batch resumed (`id`), or of a new one. */
  static async of(projectId: string, repo: Repo, head: string, id?: string): Promise<BatchRuns> {
    const known = id
      ? await (await db()).evalRun.findMany({ where: { batchId: id }, orderBy: { createdAt: "asc" } })
      : [];
    return new BatchRuns(id ?? randomUUID(), projectId, repo, head, known);
  }

  readonly verdicts: BackgroundVerdicts = async (specs, commit, changeId) => {
    let runs: RunRow[] = [...this.known, ...this.planned].filter((run) => run.tipSha === commit);
    if (runs.length === 0) {
      const at = new Date();
      const planned = (await plannedRuns(this.projectId, this.repo, commit, specs)).map((run) => ({
        id: randomUUID(),
        changeId,
        // Round 0: the change's own rounds (and their settling) never count it.
        round: 0,
        baseSha: this.head,
        tipSha: commit,
        projectId: this.projectId,
        batchId: this.batchId,
        createdAt: at,
        ...plannedRunFields(run, at),
      }));
      this.planned.push(...planned);
      runs = planned;
    }
    return runs.some((run) => isUnfinished(run.status)) ? null : runs.map(resultOf);
  };

  /** Whether this turn queued runs (the batch waits for them). */
  get queued(): boolean {
    return this.planned.some((run) => run.status === "queued");
  }

  /** Stores the planned runs in the caller's transaction; queued ones wake every instance's runners at its commit. */
  async store(tx: Tx): Promise<void> {
    if (this.planned.length === 0) return;
    await tx.evalRun.createMany({ data: this.planned as unknown as Prisma.EvalRunCreateManyInput[] });
    if (this.queued) await announceOnCommit(tx, RUNS_TOPIC, "");
  }
}
