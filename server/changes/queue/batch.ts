import { randomUUID } from "node:crypto";
import type { EvalRun, Prisma } from "@/server/generated/prisma/client";
import { announceOnCommit, db, type Tx } from "@/server/db";
import { pinRef, type Repo } from "@/server/git";
import { plannedRunFields, plannedRuns } from "../runs/plan";
import { cancelBatchRuns, isUnfinished, RUNS_TOPIC } from "../runs/store";
import type { BackgroundResult, BackgroundVerdicts } from "./evaluate";

/**
 * The merge queue's batch in flight (QueueBatch, one per project): what a turn that queued
 * background runs for its projected commits leaves for the turn their end wakes. It holds no lock:
 * the next turn lands it if its base is still the branch head and its entries are still ready, and
 * drops it otherwise (the entries are projected again). Landing deletes it in the landing's
 * transaction, so a batch lands once whatever instance resumes it.
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

/** The project's batch in flight, if any. */
export async function inFlightBatch(projectId: string): Promise<InFlight | null> {
  const row = await (await db()).queueBatch.findUnique({ where: { projectId } });
  return row && { id: row.id, baseSha: row.baseSha, items: row.entries as unknown as BatchItem[] };
}

/** Forgets a batch that can no longer land as tested; its unfinished runs are cancelled. */
export async function dropBatch(batchId: string): Promise<void> {
  await (
    await db()
  ).$transaction(async (tx) => {
    await tx.queueBatch.deleteMany({ where: { id: batchId } });
    await cancelBatchRuns(tx, batchId);
  });
}

/**
 * Records a new batch in flight with the runs its turn queued, and puts the ready entries it left
 * out back to `waiting`; its last projected commit is pinned first (safe from gc while it waits).
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
