import { announceInvalidation, db, onInvalidation } from "@/server/db";
import { log } from "@/server/log";
import { publishAfterCommit, recordEventsWith } from "@/server/events";
import { summarizeRuns, type EvalRunResult } from "@/server/evaluators";
import {
  liveVerdictsSql,
  reviewStateOf,
  statusAfterEvaluation,
  type LiveVerdict,
} from "@/server/changes/reviews/rules";
import { changeFromJson, type ChangeJson } from "../read";
import { wakeQueue } from "../queue/runner";
import { autoQueue } from "../queue/service";
import { isUnfinished, type EndedRun } from "./store";

/** What a run's end wakes: its change's round settles; a merge queue batch's run wakes the queue (its next turn reads the end). */
export async function runEnded(run: EndedRun): Promise<void> {
  if (run.batchId) wakeQueue(run.projectId!);
  else await settleRound(run.changeId);
}

// What a round's end decides on, read after the change's row lock is taken (a statement of its
// own: one that waited for the lock would read the others' rows from before the lock holder's commit).
const ROUND_SQL = `
SELECT to_jsonb(c) AS change,
       e.round, e.verdict,
       (SELECT coalesce(jsonb_agg(jsonb_build_object('evaluator', r.evaluator, 'status', r.status, 'findings', r.findings)
                                  ORDER BY r."createdAt"), '[]'::jsonb)
          FROM "EvalRun" AS r WHERE r."changeId" = c.id AND r.round = e.round) AS runs,
       ${liveVerdictsSql("c.id")} AS reviews
  FROM "Change" AS c JOIN "Evaluation" AS e ON e."changeId" = c.id
 WHERE c.id = $1::uuid`;

type RoundRow = {
  change: ChangeJson;
  round: number;
  verdict: string | null;
  runs: Array<Pick<EvalRunResult, "evaluator" | "status" | "findings">>;
  reviews: LiveVerdict[];
};

// The verdict, and the status when it moves one, written in the statement that records the event.
const settledCtes = (moves: boolean) => `
evaluated AS (UPDATE "Evaluation" SET verdict = $2::"Verdict", summary = $3, issues = $4::jsonb WHERE "changeId" = $1::uuid)
${moves ? `, moved AS (UPDATE "Change" SET status = $5::"ChangeStatus", "updatedAt" = now() WHERE id = $1::uuid)` : ""}`;

/**
 * The end of a round: once none of its runs is queued or running, the evaluation takes its
 * verdict, an `open` change becomes accepted/needs_changes (approved when approvals stand), and
 * `change.evaluated` is recorded; then auto-queue acts. Idempotent: whoever ends a run calls it,
 * and the sweep calls it for a round whose last runner died between its run's end and this.
 * Four round trips in the transaction (a fleet settles several rounds a second, and on PGlite the
 * transaction holds the only connection): the lock, the read, the write with its event, the commit.
 */
export async function settleRound(changeId: string): Promise<void> {
  const prisma = await db();
  const settled = await prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<unknown[]>`SELECT id FROM "Change" WHERE id = ${changeId}::uuid FOR UPDATE`;
    if (locked.length === 0) return null;
    const [row] = await tx.$queryRawUnsafe<RoundRow[]>(ROUND_SQL, changeId);
    if (!row || row.verdict !== null || row.runs.some((run) => isUnfinished(run.status))) return null;
    const current = changeFromJson(row.change);
    const outcome = summarizeRuns(row.runs);
    const verdict = outcome.verdict;
    const status =
      current.status === "open" ? statusAfterEvaluation(verdict, reviewStateOf(current, row.reviews)) : current.status;
    const moves = status !== current.status;
    const params = [changeId, verdict, outcome.summary, JSON.stringify(outcome.issues), ...(moves ? [status] : [])];
    await recordEventsWith(tx, { ctes: settledCtes(moves), params }, [
      { projectId: current.projectId, kind: "change.evaluated", actor: "system", data: { changeId, verdict, status } },
    ]);
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
