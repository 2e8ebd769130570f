import { announceInvalidation, db, onInvalidation } from "@/server/db";
import { log } from "@/server/log";
import { publishAfterCommit, recordEvent } from "@/server/events";
import { summarizeRuns, type EvalRunResult } from "@/server/evaluators";
import { reviewState, statusAfterEvaluation } from "@/server/changes/reviews/rules";
import { lockChange } from "../load";
import { wakeQueue } from "../queue/runner";
import { autoQueue } from "../queue/service";
import { isUnfinished, type EndedRun } from "./store";

/** What a run's end wakes: its change's round settles; a merge queue batch's run wakes the queue (its next turn reads the end). */
export async function runEnded(run: EndedRun): Promise<void> {
  if (run.batchId) wakeQueue(run.projectId!);
  else await settleRound(run.changeId);
}

/**
 * The end of a round: once none of its runs is queued or running, the evaluation takes its
 * verdict, an `open` change becomes accepted/needs_changes (approved when approvals stand), and
 * `change.evaluated` is recorded; then auto-queue acts. Idempotent: whoever ends a run calls it,
 * and the sweep calls it for a round whose last runner died between its run's end and this.
 */
export async function settleRound(changeId: string): Promise<void> {
  const prisma = await db();
  const settled = await prisma.$transaction(async (tx) => {
    const change = await tx.change.findUnique({ where: { id: changeId }, select: { id: true } });
    if (!change) return null;
    const current = await lockChange(tx, changeId);
    const evaluation = await tx.evaluation.findUnique({ where: { changeId } });
    if (!evaluation || evaluation.verdict !== null) return null;
    const runs = await tx.evalRun.findMany({
      where: { changeId, round: evaluation.round },
      orderBy: { createdAt: "asc" },
    });
    if (runs.some((run) => isUnfinished(run.status))) return null;
    const outcome = summarizeRuns(
      runs.map(
        (run) => ({ evaluator: run.evaluator, status: run.status, findings: run.findings }) as unknown as EvalRunResult,
      ),
    );
    const verdict = outcome.verdict;
    await tx.evaluation.update({
      where: { changeId },
      data: { verdict, summary: outcome.summary, issues: outcome.issues },
    });
    let status = current.status;
    if (status === "open") {
      status = statusAfterEvaluation(verdict, await reviewState(tx, current));
      await tx.change.update({ where: { id: changeId }, data: { status } });
    }
    await recordEvent(tx, {
      projectId: current.projectId,
      kind: "change.evaluated",
      actor: "system",
      data: { changeId, verdict, status },
    });
    return current.projectId;
  });
  if (!settled) return;
  await publishAfterCommit();
  announceSettled(changeId);
  const change = await prisma.change.findUnique({ where: { id: changeId }, include: { project: true } });
  if (change)
    await autoQueue(change.project, change).catch((error: unknown) =>
      log().error({ err: error, changeId }, "runs: auto-queue after evaluation failed"),
    );
}

// Requests waiting for a change's round to settle, on this instance.
const TOPIC = "evaluation-settled";
const holder = globalThis as unknown as { __svcSettleWaiters?: Map<string, Set<() => void>> };
const waiters = (holder.__svcSettleWaiters ??= new Map<string, Set<() => void>>());

const wake = (changeId: string) => {
  for (const waiter of waiters.get(changeId) ?? []) waiter();
};
onInvalidation(TOPIC, { drop: wake, dropAll: () => waiters.forEach((_, id) => wake(id)) });

/** Wakes this instance's and (on PostgreSQL) every instance's waiters of the change. */
export function announceSettled(changeId: string): void {
  wake(changeId);
  void announceInvalidation(TOPIC, changeId);
}

/** A settled round wakes it (and a slow poll catches a lost notification). */
const POLL_MS = 2_000;

/** Resolves when the change's evaluation has a verdict or after `ms`; answers whether it settled. */
export async function waitForVerdict(changeId: string, ms: number): Promise<boolean> {
  const prisma = await db();
  const settled = async () => {
    const evaluation = await prisma.evaluation.findUnique({ where: { changeId }, select: { verdict: true } });
    return !evaluation || evaluation.verdict !== null;
  };
  const deadline = Date.now() + ms;
  // Set by a wake between reading and waiting: then read again at once.
  let signalled: boolean;
  let woken: () => void = () => {};
  const waiter = () => {
    signalled = true;
    woken();
  };
  const set = waiters.get(changeId) ?? new Set<() => void>();
  waiters.set(changeId, set);
  set.add(waiter);
  try {
    for (;;) {
      signalled = false;
      if (await settled()) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      if (signalled) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, POLL_MS));
        woken = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    set.delete(waiter);
    if (set.size === 0) waiters.delete(changeId);
  }
}
