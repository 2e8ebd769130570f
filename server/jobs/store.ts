import type { JobRunStatus } from "@/server/generated/prisma/enums";
import type { Db, DbOrTx, Tx } from "@/server/db";
import { Prisma } from "@/server/generated/prisma/client";

/** What the executor runs on: the Prisma client and which database it is (locking differs). */
export interface JobsDb {
  prisma: Db;
  kind: "pglite" | "postgres";
}

// Short transactions on PGlite's single connection still queue behind each other: wait long enough.
const TX_OPTIONS = { maxWait: 30_000, timeout: 30_000 };

export function transaction<T>(jobs: JobsDb, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return jobs.prisma.$transaction(fn, TX_OPTIONS);
}

/** `FOR UPDATE SKIP LOCKED` on PostgreSQL, where instances compete; PGlite has one connection and one process. */
export function skipLocked(jobs: JobsDb): string {
  return jobs.kind === "postgres" ? "FOR UPDATE SKIP LOCKED" : "";
}

export const ACTIVE_STATUSES = ["queued", "running", "sleeping", "waiting"] as const satisfies readonly JobRunStatus[];
const ACTIVE = new Set<JobRunStatus>(ACTIVE_STATUSES);
export const isActive = (status: JobRunStatus) => ACTIVE.has(status);

/** A sleep or a waitForEvent the run is parked on; `at` is when it ends (ms). */
export interface PendingEntry {
  type: "sleep" | "wait";
  stepId: string;
  name: string;
  at: number;
  event?: string;
  if?: string | null;
  /** Only events stored after the wait began (higher seq) can resolve it. */
  afterSeq?: string;
}

/** A JSON column value; JSON null where the value is null (Prisma needs the marker). */
export function asJson(value: unknown): Prisma.InputJsonValue | typeof Prisma.JsonNull {
  return value === null || value === undefined ? Prisma.JsonNull : value;
}

export function waitEventsOf(pending: PendingEntry[]): string[] {
  return [...new Set(pending.filter((entry) => entry.type === "wait").map((entry) => entry.event!))];
}

/** Stores step results once each (the first result of a step wins). */
export async function insertSteps(
  client: DbOrTx,
  runId: string,
  steps: Array<{
    stepId: string;
    name: string;
    type: "data" | "error";
    data?: unknown;
    error?: unknown;
    attempts?: number;
  }>,
): Promise<void> {
  await client.jobStep.createMany({
    data: steps.map((step) => ({
      runId,
      stepId: step.stepId,
      name: step.name,
      type: step.type,
      data: step.type === "data" ? asJson(step.data) : undefined,
      error: step.type === "error" ? asJson(step.error) : undefined,
      attempts: step.attempts ?? 1,
    })),
    skipDuplicates: true,
  });
}
