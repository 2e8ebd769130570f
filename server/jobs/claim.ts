import { skipLocked, type JobsDb, type PendingEntry } from "./store";

/** A run as one call of the handler needs it. */
export interface RunState {
  id: string;
  functionId: string;
  event: unknown;
  attempt: number;
  maxAttempts: number;
  stepAttempts: Record<string, number>;
  retryStepId: string | null;
  pending: PendingEntry[];
  steps: Array<{ stepId: string; type: "data" | "error"; data: unknown; error: unknown }>;
}

/** Due now (`$now`): new and retried runs, ended sleeps and waits, and runs whose lease expired (crash recovery). */
export const due = (
  now: number,
) => `((status IN ('queued', 'sleeping', 'waiting') AND "availableAt" <= $${now}::timestamp(3))
           OR (status = 'running' AND "leaseExpiresAt" < $${now}::timestamp(3)))`;

/** Parameter positions (`$n`) of the claim fragment in the statement that embeds it. */
export interface ClaimParams {
  now: number;
  owner: number;
  leaseExpiresAt: number;
  functionIds: number;
  limit: number;
}

/**
 * CTEs `picked` and `claimed` that lease up to `limit` due runs of the given functions (no
 * concurrency limit) to `owner`, oldest first; on PostgreSQL competing instances skip each other's
 * candidates (SKIP LOCKED). `exclude` names a relation of run ids (`id`) that must not be claimed:
 * the runs the same statement writes. One shape for any limit (a parameter), so the statement is
 * never recompiled.
 */
export function claimCtes(jobs: JobsDb, p: ClaimParams, exclude?: string): string {
  return `picked AS (
       SELECT id FROM "JobRun" WHERE "functionId" = ANY($${p.functionIds}::text[]) AND ${due(p.now)}
       ${exclude ? `AND id NOT IN (SELECT id FROM ${exclude})` : ""}
       ORDER BY "availableAt", "createdAt" LIMIT $${p.limit}::int ${skipLocked(jobs)}
     ), claimed AS (
       UPDATE "JobRun" AS r SET status = 'running', "leaseOwner" = $${p.owner}, "leaseExpiresAt" = $${p.leaseExpiresAt}::timestamp(3),
         "startedAt" = COALESCE(r."startedAt", $${p.now}::timestamp(3)), "updatedAt" = $${p.now}::timestamp(3)
       FROM picked WHERE r.id = picked.id
       RETURNING r.id, r."functionId", r.event, r.attempt, r."maxAttempts", r."stepAttempts", r."retryStepId", r.pending, r."availableAt", r."createdAt"
     )`;
}

/** The runs `claimCtes` leased, as one JSON array in claim order, each with its steps in completion order. */
export const CLAIMED_RUNS = `COALESCE((
  SELECT json_agg(json_build_object('id', c.id, 'functionId', c."functionId", 'event', c.event, 'attempt', c.attempt,
    'maxAttempts', c."maxAttempts", 'stepAttempts', c."stepAttempts", 'retryStepId', c."retryStepId", 'pending', c.pending,
    'steps', COALESCE((SELECT json_agg(json_build_object('stepId', s."stepId", 'type', s.type, 'data', s.data, 'error', s.error) ORDER BY s.seq)
                       FROM "JobStep" s WHERE s."runId" = c.id), '[]'::json))
    ORDER BY c."availableAt", c."createdAt")
  FROM claimed c), '[]'::json)`;

type ClaimedJson = Omit<RunState, "stepAttempts" | "pending"> & {
  stepAttempts: Record<string, number> | null;
  pending: PendingEntry[] | null;
};

/** The RunStates of a `CLAIMED_RUNS` value. */
export function claimedRuns(value: unknown): RunState[] {
  return ((value ?? []) as ClaimedJson[]).map((row) => ({
    ...row,
    stepAttempts: row.stepAttempts ?? {},
    pending: row.pending ?? [],
  }));
}
