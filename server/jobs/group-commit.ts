import { CLAIMED_RUNS, claimCtes, claimedRuns, type RunState } from "./claim";
import type { JobsDb } from "./store";

/** A finished step as memoized: data, or the error of a step that exhausted its attempts. */
export interface StepRow {
  stepId: string;
  name: string;
  type: "data" | "error";
  data?: unknown;
  error?: unknown;
  attempts: number;
}

/** One lease-holder's write of a run: memoize steps (and extend the lease), or complete it. */
export type RunWrite =
  | { runId: string; kind: "steps"; steps: StepRow[]; leaseExpiresAt: Date }
  | { runId: string; kind: "complete"; output: unknown };

/** Runs to lease in the statement that completes others: the slots the completed runs free. */
export interface ClaimRequest {
  limit: number;
  /** Functions without a concurrency limit (the others are admitted under their key's lock). */
  functionIds: string[];
  leaseMs: number;
}

/** The executor's side of the claim folded into a batch. */
export interface Claimer {
  /** Asked before writing a batch that completes `completes` runs; null claims nothing. */
  request(completes: number): ClaimRequest | null;
  /** The runs leased with the batch, in claim order; null when the batch failed and claimed nothing. */
  claimed(runs: RunState[] | null, request: ClaimRequest): void;
}

interface Waiting {
  write: RunWrite;
  resolve(held: boolean): void;
  reject(error: unknown): void;
}

const ts = (date: Date) => date.toISOString();

// One statement for a whole batch: the runs still held by `owner` are updated (their lease checked
// row by row), the steps of those runs inserted (the first result of a step wins), and the held ids
// answered. A run whose lease is lost changes nothing, as in the single-run writes. The same
// statement leases up to $7 due runs (0: none) for the slots the completed runs free, so a busy
// executor needs no claim statement of its own; the runs it writes are never among them.
const flushSql = (jobs: JobsDb) => `
WITH w AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS w(id text, kind text, "leaseExpiresAt" text, output jsonb)
), held AS (
  UPDATE "JobRun" AS r SET
    status = CASE WHEN w.kind = 'complete' THEN 'completed'::"JobRunStatus" ELSE r.status END,
    output = CASE WHEN w.kind = 'complete' THEN COALESCE(w.output, 'null'::jsonb) ELSE r.output END,
    "endedAt" = CASE WHEN w.kind = 'complete' THEN $3::timestamp(3) ELSE r."endedAt" END,
    pending = CASE WHEN w.kind = 'complete' THEN '[]'::jsonb ELSE r.pending END,
    "waitEvents" = CASE WHEN w.kind = 'complete' THEN ARRAY[]::text[] ELSE r."waitEvents" END,
    "leaseOwner" = CASE WHEN w.kind = 'complete' THEN NULL ELSE r."leaseOwner" END,
    "leaseExpiresAt" = CASE WHEN w.kind = 'complete' THEN NULL ELSE w."leaseExpiresAt"::timestamp(3) END,
    attempt = CASE WHEN w.kind = 'steps' THEN 0 ELSE r.attempt END,
    "retryStepId" = CASE WHEN w.kind = 'steps' THEN NULL ELSE r."retryStepId" END,
    "updatedAt" = $3::timestamp(3)
  FROM w WHERE r.id = w.id AND r."leaseOwner" = $2 AND r.status = 'running'
  RETURNING r.id
), steps AS (
  INSERT INTO "JobStep" ("runId", "stepId", name, type, data, error, attempts, "completedAt")
  SELECT s."runId", s."stepId", s.name, s.type,
         CASE WHEN s.type = 'data' THEN COALESCE(s.data, 'null'::jsonb) END,
         CASE WHEN s.type = 'error' THEN COALESCE(s.error, 'null'::jsonb) END,
         s.attempts, $3::timestamp(3)
  FROM jsonb_to_recordset($4::jsonb) AS s("runId" text, "stepId" text, name text, type text, data jsonb, error jsonb, attempts int, ord int)
  JOIN held ON held.id = s."runId"
  ORDER BY s.ord
  ON CONFLICT DO NOTHING
), ${claimCtes(jobs, { now: 3, owner: 2, leaseExpiresAt: 5, functionIds: 6, limit: 7 }, "w")}
SELECT COALESCE((SELECT json_agg(id) FROM held), '[]'::json) AS held, ${CLAIMED_RUNS} AS claimed`;

/**
 * Group commit of the executor's most frequent writes: the runs it drives memoize steps and
 * complete through one queue, and whatever queued while the previous batch was being written goes
 * out as the next batch, in one statement. A write resolves only once its batch committed, so a
 * run's next call never starts before its steps are durable (the same guarantee as one write per
 * run). A batch that fails is written again one run at a time, so one bad write (say, a value the
 * database refuses) fails only its own run.
 */
export class GroupCommit {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | null = null;
  private readonly sql: string;

  constructor(
    private readonly jobs: JobsDb,
    private readonly owner: string,
    private readonly now: () => Date,
    private readonly claimer?: Claimer,
  ) {
    this.sql = flushSql(jobs);
  }

  /** Answers whether the run was still held (false: nothing was written). */
  write(write: RunWrite): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.flushing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    // Let the writes of runs finishing in the same turn join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      await this.flush(batch);
    }
    this.flushing = null;
  }

  private async flush(batch: Waiting[]): Promise<void> {
    const completes = batch.filter((waiting) => waiting.write.kind === "complete").length;
    const claim = completes ? (this.claimer?.request(completes) ?? null) : null;
    try {
      const { held, claimed } = await this.writeBatch(
        batch.map((waiting) => waiting.write),
        claim,
      );
      if (claim) this.claimer!.claimed(claimed, claim);
      for (const waiting of batch) waiting.resolve(held.has(waiting.write.runId));
    } catch (error) {
      if (claim) this.claimer!.claimed(null, claim);
      if (batch.length === 1) return batch[0].reject(error);
      for (const waiting of batch) {
        await this.writeBatch([waiting.write], null).then(
          ({ held }) => waiting.resolve(held.has(waiting.write.runId)),
          (single) => waiting.reject(single),
        );
      }
    }
  }

  private async writeBatch(
    writes: RunWrite[],
    claim: ClaimRequest | null,
  ): Promise<{ held: Set<string>; claimed: RunState[] }> {
    const runs = writes.map((write) =>
      write.kind === "steps"
        ? { id: write.runId, kind: write.kind, leaseExpiresAt: ts(write.leaseExpiresAt) }
        : { id: write.runId, kind: write.kind, output: write.output ?? null },
    );
    const steps = writes.flatMap((write) =>
      write.kind === "steps" ? write.steps.map((step) => ({ runId: write.runId, ...step })) : [],
    );
    const now = this.now();
    const [row] = await this.jobs.prisma.$queryRawUnsafe<Array<{ held: string[]; claimed: unknown }>>(
      this.sql,
      JSON.stringify(runs),
      this.owner,
      ts(now),
      JSON.stringify(steps.map((step, ord) => ({ ...step, data: step.data ?? null, error: step.error ?? null, ord }))),
      ts(new Date(now.getTime() + (claim?.leaseMs ?? 0))),
      claim?.functionIds ?? [],
      claim?.limit ?? 0,
    );
    return { held: new Set(row?.held ?? []), claimed: claimedRuns(row?.claimed) };
  }
}
