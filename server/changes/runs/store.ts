import type { EvalRun } from "@/server/generated/prisma/client";
import { announcement, announcementsSql, db, type DbOrTx, type Tx } from "@/server/db";
import type { Finding } from "@/server/evaluators";

/**
 * The durable queue of background runs: `EvalRun` rows in `queued` are taken by any instance's
 * runners under a lease (`leaseOwner`, `leaseUntil`) that the holder renews while it runs. A run
 * whose holder died (its lease expired) is taken again, `attempts` counting each take; every
 * write of a running run is conditional on the lease, so an old holder can never write over a
 * new one's result, nor over a cancel.
 */

/** How long a taken run stays its holder's without a renewal. */
export const LEASE_MS = 20_000;
/**
 * How often a holder renews its lease, and so notices a lost lease (a cancel is announced: the
 * holder aborts at once) and one whose announcement it missed.
 */
export const RENEW_MS = 5_000;
/** Takes of a run (its first and takeovers after a crash) before it ends as `error`. */
export const MAX_TAKES = 3;

const UNFINISHED = ["queued", "running"] as const;
/** The notification topic that wakes every instance's runners (announce it when runs were queued). */
export const RUNS_TOPIC = "eval-runs";
/** The notification topic that aborts a cancelled run wherever it runs (the key: the run's id). */
export const RUNS_CANCELLED_TOPIC = "eval-runs-cancelled";
const stamp = (ms = 0) => new Date(Date.now() + ms).toISOString();

// The oldest queued runs, and the running ones whose holder's lease expired, taken by this holder.
const CLAIM = `
UPDATE "EvalRun" AS r
   SET status = 'running', "leaseOwner" = $1, "leaseUntil" = $3::timestamp(3), attempts = r.attempts + 1,
       "startedAt" = coalesce(r."startedAt", $4::timestamp(3))
 WHERE r.id IN (SELECT id FROM "EvalRun"
                 WHERE (status = 'queued' OR (status = 'running' AND "leaseUntil" < $4::timestamp(3))) AND attempts < ${MAX_TAKES}
                 ORDER BY "createdAt", id LIMIT $2 FOR UPDATE SKIP LOCKED)
RETURNING r.*`;

/** Takes up to `limit` runs for `owner`. */
export async function claimRuns(owner: string, limit: number): Promise<EvalRun[]> {
  if (limit <= 0) return [];
  return (await db()).$queryRawUnsafe<EvalRun[]>(CLAIM, owner, limit, stamp(LEASE_MS), stamp());
}

// Runs taken MAX_TAKES times whose last holder died too: they end as `error`.
const ABANDON = `
UPDATE "EvalRun" AS r
   SET status = 'error', "finishedAt" = $2::timestamp(3), "leaseOwner" = NULL, "leaseUntil" = NULL,
       findings = jsonb_build_array(jsonb_build_object('message', $1::text))
 WHERE r.id IN (SELECT id FROM "EvalRun" WHERE status = 'running' AND "leaseUntil" < $2::timestamp(3) AND attempts >= ${MAX_TAKES}
                 FOR UPDATE SKIP LOCKED)
RETURNING r."changeId", r."batchId", r."projectId"`;

/** A run that ended, as what its end wakes needs it. */
export type EndedRun = Pick<EvalRun, "changeId" | "batchId" | "projectId">;

/** Ends runs whose every runner died; answers them. */
export async function abandonDeadRuns(): Promise<EndedRun[]> {
  return (await db()).$queryRawUnsafe<EndedRun[]>(ABANDON, `The runner died ${MAX_TAKES} times running it`, stamp());
}

// One statement for every run a holder renews (fifty runs renewed one by one were 25 statements a second).
const RENEW = `
UPDATE "EvalRun" AS r
   SET "leaseUntil" = $2::timestamp(3), "logBytes" = v."logBytes"
  FROM unnest($3::uuid[], $4::int[]) AS v(id, "logBytes")
 WHERE r.id = v.id AND r."leaseOwner" = $1 AND r.status = 'running'
RETURNING r.id`;

/**
 * Extends `owner`'s leases of its running runs (and records how much each has logged); answers
 * the ids still theirs: a run left out was cancelled or taken over.
 */
export async function renewLeases(owner: string, runs: { id: string; logBytes: number }[]): Promise<Set<string>> {
  if (runs.length === 0) return new Set();
  const rows = await (
    await db()
  ).$queryRawUnsafe<{ id: string }[]>(
    RENEW,
    owner,
    stamp(LEASE_MS),
    runs.map((run) => run.id),
    runs.map((run) => run.logBytes),
  );
  return new Set(rows.map((row) => row.id));
}

export interface RunEnd {
  status: "passed" | "failed" | "error";
  findings: Finding[];
  durationMs: number;
  exitCode?: number | null;
  timedOut?: boolean;
  /** Runs of the command (retries included); the take counted one already. */
  commandAttempts?: number;
  flaky?: boolean;
  cache?: { key: string; hit: boolean } | null;
  logBytes: number;
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
}

/** Writes a run's end if `owner` still holds it; false when it does not (the result is dropped). */
export async function finishRun(runId: string, owner: string, end: RunEnd): Promise<boolean> {
  const prisma = await db();
  const extra = Math.max(0, (end.commandAttempts ?? 1) - 1);
  const { count } = await prisma.evalRun.updateMany({
    where: { id: runId, leaseOwner: owner, status: "running" },
    data: {
      status: end.status,
      findings: end.findings as unknown as EvalRun["findings"] & object,
      durationMs: end.durationMs,
      exitCode: end.exitCode ?? null,
      timedOut: end.timedOut ?? false,
      attempts: { increment: extra },
      flaky: end.flaky ?? false,
      cacheKey: end.cache?.key ?? null,
      cacheHit: end.cache?.hit ?? null,
      logBytes: end.logBytes,
      costUsd: end.costUsd ?? null,
      inputTokens: end.inputTokens ?? null,
      outputTokens: end.outputTokens ?? null,
      finishedAt: new Date(),
      leaseOwner: null,
      leaseUntil: null,
    },
  });
  return count === 1;
}

/** Puts a run `owner` holds back in the queue, its take counted (what ran it died under it). */
export async function requeueRun(runId: string, owner: string): Promise<void> {
  await (
    await db()
  ).evalRun.updateMany({
    where: { id: runId, leaseOwner: owner, status: "running" },
    data: { status: "queued", leaseOwner: null, leaseUntil: null },
  });
}

/** Puts `owner`'s running runs back in the queue (a clean shutdown), their take not counted. */
export async function releaseRuns(runIds: string[], owner: string): Promise<void> {
  if (runIds.length === 0) return;
  await (
    await db()
  ).evalRun.updateMany({
    where: { id: { in: runIds }, leaseOwner: owner, status: "running" },
    data: { status: "queued", leaseOwner: null, leaseUntil: null, attempts: { decrement: 1 } },
  });
}

/**
 * One statement that cancels the unfinished runs `where` picks (of "EvalRun" AS r, joined with
 * `from`; the caller's parameters from $3) and announces each when the transaction commits
 * (RUNS_CANCELLED_TOPIC): the runner holding one aborts it at once, on whichever instance.
 */
const cancelRunsSql = (where: string, from = "") => `
WITH cancelled AS (
  UPDATE "EvalRun" AS r
     SET status = 'cancelled', "finishedAt" = $1::timestamp(3), "leaseOwner" = NULL, "leaseUntil" = NULL
    ${from}
   WHERE r.status IN ('queued', 'running') AND ${where}
  RETURNING r.id, r."changeId"),
announced AS (${announcementsSql("ARRAY(SELECT $2 || id::text FROM cancelled)")})
SELECT x.id, x."changeId" FROM (SELECT count(*) FROM announced) AS a JOIN cancelled AS x ON true`;

/** Cancels the runs `where` picks (see cancelRunsSql); answers them. */
export function cancelRunsWhere(
  client: DbOrTx,
  query: { where: string; from?: string; params: unknown[] },
): Promise<Array<{ id: string; changeId: string }>> {
  return client.$queryRawUnsafe(
    cancelRunsSql(query.where, query.from),
    stamp(),
    announcement(RUNS_CANCELLED_TOPIC, ""),
    ...query.params,
  );
}

/**
 * Cancels a change's queued and running runs (a new round, a rejection, a moved workspace); the
 * merge queue's runs that name the change test a batch, not its round, and are left alone.
 */
export async function cancelUnfinishedRuns(client: DbOrTx, changeId: string): Promise<number> {
  const where = `r."changeId" = $3::uuid AND r."batchId" IS NULL`;
  return (await cancelRunsWhere(client, { where, params: [changeId] })).length;
}

/** Cancels a merge queue batch's queued and running runs (the batch was dropped). */
export async function cancelBatchRuns(client: DbOrTx, batchId: string): Promise<void> {
  await cancelRunsWhere(client, { where: `r."batchId" = $3::uuid`, params: [batchId] });
}

/** Cancels one run unless it is final; answers the run after, or null when it was final already. */
export async function cancelRun(tx: Tx, runId: string): Promise<EvalRun | null> {
  const cancelled = await cancelRunsWhere(tx, { where: `r.id = $3::uuid`, params: [runId] });
  return cancelled.length === 1 ? tx.evalRun.findUniqueOrThrow({ where: { id: runId } }) : null;
}

export const isUnfinished = (status: string) => (UNFINISHED as readonly string[]).includes(status);
