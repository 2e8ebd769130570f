import type { Change, EvalRun, Evaluation } from "@/server/generated/prisma/client";
import { usernameSql } from "@/server/auth";
import { database, dateFromJson } from "@/server/db";
import {
  latestTransitionSql,
  transitionFromJson,
  transitionsFromJson,
  transitionsSql,
  type Transition,
} from "@/server/events";
import { workspaceNameSql } from "@/server/workspaces";
import { queuePositionSql, type QueuePosition } from "./queue/entries";

/** Everything a change read shows, as one snapshot of the database. */
export interface ChangeState {
  change: Change;
  evaluation: Evaluation | null;
  /** Every round's runs, oldest round first. */
  runs: EvalRun[];
  workspace: string | null;
  author: string | null;
  queue: QueuePosition | null;
}

// One statement, through the driver: a change read is the most frequent read of a fleet (the
// event stream makes one per transition), and it was six (the change, its evaluation, its runs,
// two names, its queue position). One snapshot also means a landing (which takes the queue entry
// and merges the change in one transaction) is seen whole or not at all. The stream reads the
// change's transitions after its cursor ($2), or its latest one, in the same snapshot.
const readChangeSql = (transitions: string | null) => `
SELECT to_jsonb(c) AS change,
       (SELECT to_jsonb(e) FROM "Evaluation" AS e WHERE e."changeId" = c.id) AS evaluation,
       (SELECT coalesce(jsonb_agg(to_jsonb(r) ORDER BY r.round, r."createdAt"), '[]'::jsonb) FROM "EvalRun" AS r WHERE r."changeId" = c.id) AS runs,
       ${workspaceNameSql('c."workspaceId"')} AS workspace,
       ${usernameSql('c."authorId"')} AS author,
       ${queuePositionSql("c.id")} AS queue
       ${transitions ? `, ${transitions} AS transitions` : ""}
  FROM "Change" AS c
 WHERE c.id = $1::uuid`;
const READ_CHANGE = readChangeSql(null);
const READ_CHANGE_AND_TRANSITIONS = readChangeSql(transitionsSql("c.id", 'c."projectId"', "$2::bigint"));
const READ_CHANGE_AND_LATEST_TRANSITION = readChangeSql(latestTransitionSql("c.id", 'c."projectId"'));

type Json<T, Dates extends keyof T> = Omit<T, Dates> & { [K in Dates]: T[K] extends Date ? string : string | null };

const utc = dateFromJson;
const utcOrNull = (value: string | null) => (value === null ? null : dateFromJson(value));

export type ChangeJson = Json<Change, "createdAt" | "updatedAt" | "mergedAt" | "rejectedAt" | "revertedAt">;

export const changeFromJson = (row: ChangeJson): Change => ({
  ...row,
  createdAt: utc(row.createdAt),
  updatedAt: utc(row.updatedAt),
  mergedAt: utcOrNull(row.mergedAt),
  rejectedAt: utcOrNull(row.rejectedAt),
  revertedAt: utcOrNull(row.revertedAt),
});

type StateRow = {
  change: Json<Change, "createdAt" | "updatedAt" | "mergedAt" | "rejectedAt" | "revertedAt">;
  evaluation: Json<Evaluation, "createdAt"> | null;
  runs: Array<Json<EvalRun, "createdAt" | "startedAt" | "finishedAt" | "leaseUntil">>;
  workspace: string | null;
  author: string | null;
  queue: QueuePosition | null;
};

const stateOf = (row: StateRow): ChangeState => ({
  change: changeFromJson(row.change),
  evaluation: row.evaluation && { ...row.evaluation, createdAt: utc(row.evaluation.createdAt) },
  runs: row.runs.map((run) => ({
    ...run,
    createdAt: utc(run.createdAt),
    startedAt: utcOrNull(run.startedAt),
    finishedAt: utcOrNull(run.finishedAt),
    leaseUntil: utcOrNull(run.leaseUntil),
  })),
  workspace: row.workspace,
  author: row.author,
  // In the order the API has always shown them (jsonb orders keys by length).
  queue: row.queue && { position: row.queue.position, state: row.queue.state, enqueuedAt: row.queue.enqueuedAt },
});

/** A change and what its read shows, or null when there is no such change (`id` must be a uuid). */
export async function readChangeState(id: string): Promise<ChangeState | null> {
  const [row] = await (await database()).raw.query<StateRow>(READ_CHANGE, [id]);
  return row ? stateOf(row) : null;
}

/** `readChangeState` and the change's transitions after `afterSeq`, oldest first, in one snapshot. */
export async function readChangeAndTransitions(
  id: string,
  afterSeq: bigint,
): Promise<{ state: ChangeState; transitions: Transition[] } | null> {
  const [row] = await (
    await database()
  ).raw.query<StateRow & { transitions: Array<{ id: string; seq: string; kind: string }> }>(
    READ_CHANGE_AND_TRANSITIONS,
    [id, afterSeq.toString()],
  );
  return row ? { state: stateOf(row), transitions: transitionsFromJson(row.transitions) } : null;
}

/** `readChangeState` and the change's latest transition (null: none), in one snapshot. */
export async function readChangeAndLatestTransition(
  id: string,
): Promise<{ state: ChangeState; latest: Transition | null } | null> {
  const [row] = await (
    await database()
  ).raw.query<StateRow & { transitions: { id: string; seq: string; kind: string } | null }>(
    READ_CHANGE_AND_LATEST_TRANSITION,
    [id],
  );
  return row ? { state: stateOf(row), latest: row.transitions ? transitionFromJson(row.transitions) : null } : null;
}
