import type { Tx } from "@/server/db";
import type { Prisma } from "@/server/generated/prisma/client";
import type { GroupCommit } from "./group-commit";
import type { FunctionSpec } from "./registry";
import { CLAIMED_RUNS, claimCtes, claimedRuns, due, type RunState } from "./claim";
import { asJson, insertSteps, skipLocked, transaction, waitEventsOf, type JobsDb, type PendingEntry } from "./store";

/** How long a claimed run stays blocked when its concurrency key is at its limit. */
const CONCURRENCY_RECHECK_MS = 250;

const sqlTime = (date: Date) => date.toISOString();

export interface ClaimOptions {
  owner: string;
  specs: Map<string, FunctionSpec>;
  now: Date;
  leaseMs: number;
  limit: number;
}

async function lockKeys(tx: Tx, jobs: JobsDb, keys: string[]): Promise<void> {
  if (jobs.kind !== "postgres") return;
  // Sorted, so two claimers never wait on each other's keys in opposite orders.
  for (const key of [...new Set(keys)].sort()) {
    await tx.$queryRawUnsafe(`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext($1))) AS l`, key);
  }
}

/**
 * Leases up to `limit` due runs of the given functions to `owner`: new and retried runs, ended
 * sleeps and waits, and runs whose previous owner's lease expired (crash recovery). Runs of
 * functions without a concurrency limit are leased and read with their steps in one statement; on
 * PostgreSQL competing instances skip each other's candidates (SKIP LOCKED). Per-key concurrency
 * limits are checked under an advisory lock per key, so two instances never both admit past a limit.
 */
export async function claimRuns(jobs: JobsDb, options: ClaimOptions): Promise<RunState[]> {
  if (options.limit <= 0) return [];
  const free = [...options.specs.values()].filter((spec) => !spec.concurrency).map((spec) => spec.id);
  const claimed = free.length ? await claimFree(jobs, free, options) : [];
  const limited = [...options.specs.values()].filter((spec) => spec.concurrency);
  if (!limited.length || claimed.length >= options.limit) return claimed;
  const admitted = await claimLimited(jobs, {
    ...options,
    limit: options.limit - claimed.length,
    specs: new Map(limited.map((spec) => [spec.id, spec])),
  });
  const loaded = await Promise.all(admitted.map((runId) => loadRun(jobs, runId, options.owner)));
  return [...claimed, ...loaded.filter((run): run is RunState => run !== null)];
}

async function claimFree(jobs: JobsDb, functionIds: string[], options: ClaimOptions): Promise<RunState[]> {
  const { now } = options;
  const [row] = await jobs.prisma.$queryRawUnsafe<Array<{ claimed: unknown }>>(
    `WITH ${claimCtes(jobs, { now: 1, owner: 2, leaseExpiresAt: 3, functionIds: 4, limit: 5 })} SELECT ${CLAIMED_RUNS} AS claimed`,
    sqlTime(now),
    options.owner,
    sqlTime(new Date(now.getTime() + options.leaseMs)),
    functionIds,
    options.limit,
  );
  return claimedRuns(row?.claimed);
}

/** Claims runs of concurrency-limited functions, admitting each only while its key is under its limit. */
async function claimLimited(jobs: JobsDb, options: ClaimOptions): Promise<string[]> {
  const functionIds = [...options.specs.keys()];
  const { now } = options;
  return transaction(jobs, async (tx) => {
    const placeholders = functionIds.map((_, i) => `$${i + 2}`).join(",");
    const candidates = await tx.$queryRawUnsafe<
      Array<{ id: string; functionId: string; concurrencyKey: string | null }>
    >(
      `SELECT id, "functionId", "concurrencyKey" FROM "JobRun"
       WHERE "functionId" IN (${placeholders}) AND ${due(1)}
       ORDER BY "availableAt", "createdAt" LIMIT ${Number(options.limit)} ${skipLocked(jobs)}`,
      sqlTime(now),
      ...functionIds,
    );
    if (!candidates.length) return [];
    const keyOf = (run: { functionId: string; concurrencyKey: string | null }) =>
      `${run.functionId}:${run.concurrencyKey ?? ""}`;
    await lockKeys(tx, jobs, candidates.map(keyOf));
    const admitted: string[] = [];
    const blocked: string[] = [];
    const admittedPerKey = new Map<string, number>();
    for (const run of candidates) {
      const limit = options.specs.get(run.functionId)?.concurrency?.limit;
      if (limit) {
        const key = keyOf(run);
        const running = await tx.jobRun.count({
          where: {
            functionId: run.functionId,
            concurrencyKey: run.concurrencyKey,
            status: "running",
            leaseExpiresAt: { gte: now },
            id: { not: run.id },
          },
        });
        if (running + (admittedPerKey.get(key) ?? 0) >= limit) {
          blocked.push(run.id);
          continue;
        }
        admittedPerKey.set(key, (admittedPerKey.get(key) ?? 0) + 1);
      }
      admitted.push(run.id);
    }
    if (blocked.length) {
      await tx.jobRun.updateMany({
        where: { id: { in: blocked } },
        data: { availableAt: new Date(now.getTime() + CONCURRENCY_RECHECK_MS) },
      });
    }
    if (admitted.length) {
      await tx.$executeRawUnsafe(
        `UPDATE "JobRun" SET status = 'running', "leaseOwner" = $1, "leaseExpiresAt" = $2::timestamp(3),
           "startedAt" = COALESCE("startedAt", $3::timestamp(3)), "updatedAt" = $3::timestamp(3)
         WHERE id IN (${admitted.map((_, i) => `$${i + 4}`).join(",")})`,
        options.owner,
        sqlTime(new Date(now.getTime() + options.leaseMs)),
        sqlTime(now),
        ...admitted,
      );
    }
    return admitted;
  });
}

/** Loads a run this owner holds, with its steps in completion order; null once the lease is gone. */
export async function loadRun(jobs: JobsDb, runId: string, owner: string): Promise<RunState | null> {
  const run = await jobs.prisma.jobRun.findFirst({
    where: { id: runId, leaseOwner: owner, status: "running" },
    include: { steps: { orderBy: { seq: "asc" } } },
  });
  if (!run) return null;
  return {
    id: run.id,
    functionId: run.functionId,
    event: run.event,
    attempt: run.attempt,
    maxAttempts: run.maxAttempts,
    stepAttempts: (run.stepAttempts ?? {}) as Record<string, number>,
    retryStepId: run.retryStepId,
    pending: (run.pending ?? []) as unknown as PendingEntry[],
    steps: run.steps.map((step) => ({
      stepId: step.stepId,
      type: step.type as "data" | "error",
      data: step.data,
      error: step.error,
    })),
  };
}

export interface Lease {
  jobs: JobsDb;
  runId: string;
  owner: string;
  leaseMs: number;
  now(): Date;
  /** The owner's batched writes (step memoization, completion). */
  commit: GroupCommit;
}

interface LockedRun {
  status: string;
  leaseOwner: string | null;
  pending: PendingEntry[];
  stepAttempts: Record<string, number>;
  event: unknown;
  functionId: string;
}

/**
 * Runs `fn` in a transaction holding the run's row, only while `lease` still owns it (not
 * cancelled, not taken over after expiry). Answers false when the lease is lost.
 */
async function underLease(lease: Lease, fn: (tx: Tx, run: LockedRun) => Promise<void>): Promise<boolean> {
  return transaction(lease.jobs, async (tx) => {
    const [run] = await tx.$queryRawUnsafe<LockedRun[]>(
      `SELECT status, "leaseOwner", pending, "stepAttempts", event, "functionId" FROM "JobRun" WHERE id = $1 FOR UPDATE`,
      lease.runId,
    );
    if (!run || run.status !== "running" || run.leaseOwner !== lease.owner) return false;
    await fn(tx, run);
    return true;
  });
}

const released = { leaseOwner: null, leaseExpiresAt: null };

/** Extends the lease while a long step runs; false when it is lost. */
export function renewLease(lease: Lease): Promise<boolean> {
  return updateHeld(lease, { leaseExpiresAt: new Date(lease.now().getTime() + lease.leaseMs) });
}

export interface StepResult {
  stepId: string;
  name: string;
  type: "data" | "error";
  data?: unknown;
  error?: unknown;
}

/** The lease-holder's conditional update: no row changes once the lease is lost. */
async function updateHeld(lease: Lease, data: Prisma.JobRunUpdateManyMutationInput): Promise<boolean> {
  const { count } = await lease.jobs.prisma.jobRun.updateMany({
    where: { id: lease.runId, leaseOwner: lease.owner, status: "running" },
    data,
  });
  return count === 1;
}

/** Memoizes finished steps (data, or the error of a step that exhausted its attempts); false once the lease is lost. */
export function recordSteps(
  lease: Lease,
  run: Pick<RunState, "stepAttempts">,
  results: StepResult[],
): Promise<boolean> {
  return lease.commit.write({
    runId: lease.runId,
    kind: "steps",
    steps: results.map((result) => ({ ...result, attempts: (run.stepAttempts[result.stepId] ?? 0) + 1 })),
    leaseExpiresAt: new Date(lease.now().getTime() + lease.leaseMs),
  });
}

/** Ends the sleeps and wait timeouts that are due: their steps resolve to null. */
export function resolveDuePending(lease: Lease, due: PendingEntry[]): Promise<boolean> {
  return underLease(lease, async (tx, run) => {
    const dueIds = new Set(due.map((entry) => entry.stepId));
    await insertSteps(
      tx,
      lease.runId,
      due.map((entry) => ({ stepId: entry.stepId, name: entry.name, type: "data" as const, data: null })),
    );
    const pending = run.pending.filter((entry) => !dueIds.has(entry.stepId));
    await tx.jobRun.update({
      where: { id: lease.runId },
      data: { pending: asJson(pending), waitEvents: waitEventsOf(pending) },
    });
  });
}

/**
 * Parks the run on sleeps and waits. Entries already pending keep their end time (the SDK reports
 * an unresolved sleep again on every call); the run is due at the earliest end.
 */
export function park(lease: Lease, reported: PendingEntry[]): Promise<boolean> {
  return underLease(lease, async (tx, run) => {
    const known = new Map(run.pending.map((entry) => [entry.stepId, entry]));
    const pending = reported.map((entry) => known.get(entry.stepId) ?? entry);
    const availableAt = new Date(Math.min(...pending.map((entry) => entry.at)));
    await tx.jobRun.update({
      where: { id: lease.runId },
      data: {
        ...released,
        status: pending.some((entry) => entry.type === "wait") ? "waiting" : "sleeping",
        pending: asJson(pending),
        waitEvents: waitEventsOf(pending),
        availableAt,
      },
    });
  });
}

/** Schedules another attempt: of the given steps (step errors) or of the function (errors outside steps). */
export function scheduleRetry(
  lease: Lease,
  retry: { stepIds: string[]; attempt?: number; at: Date; error: string },
): Promise<boolean> {
  return underLease(lease, async (tx, run) => {
    const stepAttempts = { ...run.stepAttempts };
    for (const stepId of retry.stepIds) stepAttempts[stepId] = (stepAttempts[stepId] ?? 0) + 1;
    await tx.jobRun.update({
      where: { id: lease.runId },
      data: {
        ...released,
        status: "queued",
        availableAt: retry.at,
        stepAttempts,
        retryStepId: retry.stepIds[0] ?? null,
        lastError: retry.error,
        ...(retry.attempt === undefined ? {} : { attempt: retry.attempt }),
      },
    });
  });
}

/** Gives the run back (the executor is stopping): due at once for whoever claims next. */
export function releaseRun(lease: Lease): Promise<boolean> {
  return underLease(lease, async (tx) => {
    await tx.jobRun.update({
      where: { id: lease.runId },
      data: { ...released, status: "queued", availableAt: lease.now() },
    });
  });
}

export function completeRun(lease: Lease, output: unknown): Promise<boolean> {
  return lease.commit.write({ runId: lease.runId, kind: "complete", output });
}

/** Fails the run and, in the same transaction, emits `inngest/function.failed` for its onFailure handler. */
export function failRun(lease: Lease, error: { name: string; message: string }): Promise<boolean> {
  return underLease(lease, async (tx, run) => {
    const now = lease.now();
    await tx.jobRun.update({
      where: { id: lease.runId },
      data: { ...released, status: "failed", lastError: error.message, endedAt: now, pending: [], waitEvents: [] },
    });
    await tx.jobEvent.create({
      data: {
        id: `failed-${lease.runId}`,
        name: "inngest/function.failed",
        data: asJson({ function_id: run.functionId, run_id: lease.runId, error, event: run.event }),
        ts: BigInt(now.getTime()),
      },
    });
  });
}

/** The newest event's seq: a wait that starts now only matches events stored after it. */
export async function latestEventSeq(jobs: JobsDb): Promise<string> {
  const latest = await jobs.prisma.jobEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } });
  return String(latest?.seq ?? 0n);
}
