import crypto from "node:crypto";
import type { Tx } from "@/server/db";
import { compileExpression } from "./expressions";
import type { FunctionSpec } from "./registry";
import {
  ACTIVE_STATUSES,
  asJson,
  insertSteps,
  skipLocked,
  transaction,
  waitEventsOf,
  type JobsDb,
  type PendingEntry,
} from "./store";

/** An event as functions receive it. */
export interface RunEvent {
  id: string;
  name: string;
  data: Record<string, unknown>;
  ts: number;
}

const ACTIVE_LIST = ACTIVE_STATUSES.map((status) => `'${status}'`).join(",");

function truthy(
  matches: ((scope: Record<string, unknown>) => unknown) | null,
  scope: Record<string, unknown>,
): boolean {
  if (!matches) return true;
  try {
    return Boolean(matches(scope));
  } catch {
    return false;
  }
}

/** The row of a new run of `spec` for `event`, due at `now`. */
export function newRun(spec: FunctionSpec, event: RunEvent, now: Date) {
  const key = spec.concurrency?.key ? spec.concurrency.key({ event }) : null;
  return {
    id: crypto.randomUUID(),
    functionId: spec.id,
    status: "queued" as const,
    event: asJson(event),
    concurrencyKey: key === null || key === undefined ? null : typeof key === "string" ? key : JSON.stringify(key),
    maxAttempts: spec.maxAttempts,
    availableAt: now,
  };
}

type NewRun = Omit<ReturnType<typeof newRun>, "status"> & {
  status: "queued" | "running";
  leaseOwner?: string;
  leaseExpiresAt?: Date;
  startedAt?: Date;
};

// One statement of one shape for any number of runs: Prisma's query compiler would compile a
// `createMany` again for every batch size (13% of a burst's CPU in bench/jobs).
const INSERT_RUNS = `
INSERT INTO "JobRun" (id, "functionId", status, event, "concurrencyKey", "maxAttempts", "availableAt", "leaseOwner", "leaseExpiresAt", "startedAt", "createdAt", "updatedAt")
SELECT r.id, r."functionId", r.status::"JobRunStatus", r.event, r."concurrencyKey", r."maxAttempts", r."availableAt"::timestamp(3),
       r."leaseOwner", r."leaseExpiresAt"::timestamp(3), r."startedAt"::timestamp(3), $2::timestamp(3), $2::timestamp(3)
FROM jsonb_to_recordset($1::jsonb) AS r(id text, "functionId" text, status text, event jsonb, "concurrencyKey" text, "maxAttempts" int,
       "availableAt" text, "leaseOwner" text, "leaseExpiresAt" text, "startedAt" text)`;

async function insertRuns(tx: Tx, runs: NewRun[]): Promise<void> {
  if (runs.length) await tx.$executeRawUnsafe(INSERT_RUNS, JSON.stringify(runs), new Date().toISOString());
}

interface WaitingRun {
  id: string;
  status: string;
  event: unknown;
  pending: PendingEntry[];
}

interface TakenEvent {
  seq: string;
  id: string;
  name: string;
  data: Record<string, unknown> | null;
  ts: string;
}

// One statement takes and marks up to `batch` events in order (the transaction keeps the mark only
// with the runs they start) and locks the active runs waiting for any of their names.
const TAKE_EVENTS = (jobs: JobsDb, batch: number) => `
WITH taken AS (
  UPDATE "JobEvent" SET "processedAt" = $1::timestamp(3) WHERE seq IN (
    SELECT seq FROM "JobEvent" WHERE "processedAt" IS NULL ORDER BY seq LIMIT ${Number(batch)} ${skipLocked(jobs)}
  ) RETURNING seq, id, name, data, ts
), waiting AS (
  SELECT id, status, event, pending FROM "JobRun"
  WHERE EXISTS (SELECT 1 FROM taken) AND "waitEvents" && ARRAY(SELECT DISTINCT name FROM taken) AND status IN (${ACTIVE_LIST})
  ORDER BY id FOR UPDATE
)
SELECT COALESCE((SELECT json_agg(json_build_object('seq', seq::text, 'id', id, 'name', name, 'data', data, 'ts', ts::text) ORDER BY seq) FROM taken), '[]'::json) AS events,
       COALESCE((SELECT json_agg(w ORDER BY w.id) FROM waiting w), '[]'::json) AS waiting`;

/** Resolves the waits `event` satisfies; answers how many parked runs it made due. */
async function resolveWaits(tx: Tx, runs: WaitingRun[], event: RunEvent, seq: bigint, now: Date): Promise<number> {
  let resumed = 0;
  for (const run of runs) {
    const resolved = run.pending.filter(
      (entry) =>
        entry.type === "wait" &&
        entry.event === event.name &&
        BigInt(entry.afterSeq ?? "0") < seq &&
        truthy(entry.if ? compileExpression(entry.if) : null, { event: run.event, async: event }),
    );
    if (!resolved.length) continue;
    await insertSteps(
      tx,
      run.id,
      resolved.map((entry) => ({ stepId: entry.stepId, name: entry.name, type: "data" as const, data: event })),
    );
    // Later events of the batch see the run as this one left it.
    run.pending = run.pending.filter((entry) => !resolved.includes(entry));
    const parked = run.status === "sleeping" || run.status === "waiting";
    if (parked) {
      run.status = "queued";
      resumed++;
    }
    await tx.jobRun.update({
      where: { id: run.id },
      data: {
        pending: asJson(run.pending),
        waitEvents: waitEventsOf(run.pending),
        ...(parked ? { status: "queued", availableAt: now } : {}),
      },
    });
  }
  return resumed;
}

async function applyCancellations(tx: Tx, specs: FunctionSpec[], event: RunEvent, now: Date): Promise<void> {
  for (const spec of specs) {
    const rules = spec.cancel.filter((rule) => rule.event === event.name);
    if (!rules.length) continue;
    const runs = await tx.$queryRawUnsafe<Array<{ id: string; event: unknown; createdAt: Date }>>(
      `SELECT id, event, "createdAt" FROM "JobRun" WHERE "functionId" = $1 AND status IN (${ACTIVE_LIST}) ORDER BY id FOR UPDATE`,
      spec.id,
    );
    const cancelled = runs.filter((run) =>
      rules.some(
        (rule) =>
          (rule.timeoutMs === null || run.createdAt.getTime() + rule.timeoutMs >= now.getTime()) &&
          truthy(rule.matches, { event: run.event, async: event }),
      ),
    );
    if (!cancelled.length) continue;
    await tx.jobRun.updateMany({
      where: { id: { in: cancelled.map((run) => run.id) }, status: { in: [...ACTIVE_STATUSES] } },
      data: {
        status: "cancelled",
        endedAt: now,
        leaseOwner: null,
        leaseExpiresAt: null,
        pending: [],
        waitEvents: [],
        lastError: `cancelled by event ${event.name} (${event.id})`,
      },
    });
  }
}

/** New runs the dispatching executor may take at once (no concurrency limit to check). */
export interface ClaimOnCreate {
  owner: string;
  leaseMs: number;
  capacity: number;
}

export interface Dispatched {
  events: number;
  /** Runs created already leased to the claiming executor: drive them without another claim. */
  claimed: Array<{ id: string; functionId: string; event: RunEvent; maxAttempts: number }>;
  /** Runs created queued and parked runs a wait resumed, for a later claim. */
  queued: number;
  /** Whether an event of this batch started nothing: the next dispatch tries `markQuietEvents` first. */
  sawQuiet: boolean;
}

/** The functions `event` starts a run of, and whether it may cancel runs (a run waiting for it is not known here). */
function effectsOf(specs: FunctionSpec[], event: RunEvent): { triggered: FunctionSpec[]; cancels: boolean } {
  return {
    triggered: specs.filter((spec) =>
      spec.eventTriggers.some((trigger) => trigger.event === event.name && truthy(trigger.matches, { event })),
    ),
    cancels: specs.some((spec) => spec.cancel.some((rule) => rule.event === event.name)),
  };
}

/** Whether `event` starts no run and cancels none (a run waiting for it is checked in SQL: `MARK_QUIET`). */
function startsNothing(specs: FunctionSpec[], event: RunEvent): boolean {
  const { triggered, cancels } = effectsOf(specs, event);
  return triggered.length === 0 && !cancels;
}

const PEEK_EVENTS = (batch: number) =>
  `SELECT seq::text AS seq, id, name, data, ts::text AS ts FROM "JobEvent" WHERE "processedAt" IS NULL ORDER BY seq LIMIT ${Number(batch)}`;

// Marks events already read as processed unless an active run waits for one of their names (the
// transaction's take resumes it then); one statement needs no transaction.
const MARK_QUIET = `
UPDATE "JobEvent" SET "processedAt" = $1::timestamp(3)
WHERE seq = ANY($2::bigint[]) AND "processedAt" IS NULL
  AND NOT EXISTS (SELECT 1 FROM "JobRun" WHERE "waitEvents" && $3::text[] AND status IN (${ACTIVE_LIST}))`;

/**
 * Marks the leading unprocessed events that start, resume and cancel nothing (most of a fleet's:
 * nobody listens to them) without a transaction, whose begin and commit would hold PGlite's one
 * connection across two round trips for no run. Answers how many it marked and whether any
 * unprocessed event it read is left for the transaction.
 */
async function markQuietEvents(
  jobs: JobsDb,
  specs: FunctionSpec[],
  now: Date,
  batch: number,
): Promise<{ marked: number; left: boolean }> {
  const rows = await jobs.prisma.$queryRawUnsafe<TakenEvent[]>(PEEK_EVENTS(batch));
  const end = rows.findIndex(
    (row) => !startsNothing(specs, { id: row.id, name: row.name, data: row.data ?? {}, ts: Number(row.ts) }),
  );
  const quiet = end < 0 ? rows : rows.slice(0, end);
  if (quiet.length === 0) return { marked: 0, left: rows.length > 0 };
  const names = [...new Set(quiet.map((row) => row.name))];
  const marked = await jobs.prisma.$executeRawUnsafe(
    MARK_QUIET,
    now.toISOString(),
    quiet.map((row) => row.seq),
    names,
  );
  return { marked, left: marked < rows.length };
}

/**
 * Takes up to `batch` unprocessed events in order: with `markQuietFirst` (the last batch had an
 * event that started nothing), those that start nothing are marked at once (`markQuietEvents`);
 * the others, in one short transaction, start the runs they trigger, resume the waits they satisfy
 * and apply the cancellations they match. Runs of functions without a concurrency limit are leased
 * to `claim.owner` as they are created, up to its capacity, which saves a claim round on the way
 * from send() to the first step.
 */
export async function dispatchEvents(
  jobs: JobsDb,
  specs: FunctionSpec[],
  now: Date,
  batch: number,
  options: { claim?: ClaimOnCreate; markQuietFirst: boolean },
): Promise<Dispatched> {
  const { claim, markQuietFirst } = options;
  const quiet = markQuietFirst ? await markQuietEvents(jobs, specs, now, batch) : { marked: 0, left: true };
  if (!quiet.left) return { events: quiet.marked, claimed: [], queued: 0, sawQuiet: quiet.marked > 0 };
  // Together at most `batch`, so a full batch still means more may be waiting.
  const taken = await takeEvents(jobs, specs, now, batch - quiet.marked, claim);
  return { ...taken, events: taken.events + quiet.marked, sawQuiet: taken.sawQuiet || quiet.marked > 0 };
}

async function takeEvents(
  jobs: JobsDb,
  specs: FunctionSpec[],
  now: Date,
  batch: number,
  claim?: ClaimOnCreate,
): Promise<Dispatched> {
  return transaction(jobs, async (tx) => {
    const [taken] = await tx.$queryRawUnsafe<Array<{ events: TakenEvent[]; waiting: WaitingRun[] }>>(
      TAKE_EVENTS(jobs, batch),
      now.toISOString(),
    );
    const rows = taken?.events ?? [];
    const waiting = taken?.waiting ?? [];
    const claimed: Dispatched["claimed"] = [];
    let queued = 0;
    let sawQuiet = false;
    let runs: NewRun[] = [];
    const insertPending = async () => {
      await insertRuns(tx, runs);
      runs = [];
    };
    for (const row of rows) {
      const event: RunEvent = { id: row.id, name: row.name, data: row.data ?? {}, ts: Number(row.ts) };
      const { triggered, cancels } = effectsOf(specs, event);
      if (triggered.length === 0 && !cancels) sawQuiet = true;
      for (const spec of triggered) {
        const run = newRun(spec, event, now);
        if (!claim || spec.concurrency || claimed.length >= claim.capacity) {
          queued++;
          runs.push(run);
          continue;
        }
        claimed.push({ id: run.id, functionId: spec.id, event, maxAttempts: spec.maxAttempts });
        runs.push({
          ...run,
          status: "running" as const,
          leaseOwner: claim.owner,
          leaseExpiresAt: new Date(now.getTime() + claim.leaseMs),
          startedAt: now,
        });
      }
      queued += await resolveWaits(tx, waiting, event, BigInt(row.seq), now);
      if (cancels) {
        // A cancellation sees the runs the events before it started.
        await insertPending();
        await applyCancellations(tx, specs, event, now);
      }
    }
    await insertPending();
    return { events: rows.length, claimed, queued, sawQuiet };
  });
}

/** Makes sure every cron function has a schedule row; a changed expression restarts its schedule. */
export async function syncSchedules(jobs: JobsDb, specs: FunctionSpec[], now: Date): Promise<void> {
  for (const spec of specs) {
    if (!spec.cron) continue;
    const nextAt = spec.cron.schedule.next(now);
    const existing = await jobs.prisma.jobSchedule.findUnique({ where: { functionId: spec.id } });
    if (!existing) {
      await jobs.prisma.jobSchedule.createMany({
        data: [{ functionId: spec.id, cron: spec.cron.expression, nextAt }],
        skipDuplicates: true,
      });
    } else if (existing.cron !== spec.cron.expression) {
      await jobs.prisma.jobSchedule.update({
        where: { functionId: spec.id },
        data: { cron: spec.cron.expression, nextAt },
      });
    }
  }
}

/**
 * Starts a run of every cron function whose tick is due. The schedule advances by compare-and-swap
 * on its previous time, so among several instances exactly one starts each tick. Missed ticks
 * (the service was down) fire once, not once per missed tick.
 */
export async function fireDueSchedules(jobs: JobsDb, specs: FunctionSpec[], now: Date): Promise<number> {
  const cronSpecs = new Map(specs.filter((spec) => spec.cron).map((spec) => [spec.id, spec]));
  if (!cronSpecs.size) return 0;
  const due = await jobs.prisma.jobSchedule.findMany({
    where: { functionId: { in: [...cronSpecs.keys()] }, nextAt: { lte: now } },
  });
  let fired = 0;
  for (const schedule of due) {
    const spec = cronSpecs.get(schedule.functionId)!;
    const started = await transaction(jobs, async (tx) => {
      const advanced = await tx.jobSchedule.updateMany({
        where: { functionId: schedule.functionId, nextAt: schedule.nextAt },
        data: { nextAt: spec.cron!.schedule.next(now) },
      });
      if (advanced.count !== 1) return false;
      const event: RunEvent = {
        id: `cron-${spec.id}-${schedule.nextAt.getTime()}`,
        name: "inngest/scheduled.timer",
        data: { cron: spec.cron!.expression },
        ts: schedule.nextAt.getTime(),
      };
      await tx.jobRun.create({ data: newRun(spec, event, now) });
      return true;
    });
    if (started) fired++;
  }
  return fired;
}
