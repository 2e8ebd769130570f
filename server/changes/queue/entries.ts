import { randomUUID } from "node:crypto";
import type { Change, QueueEntry } from "@/server/generated/prisma/client";
import { insertRowsSql, isoTimestampSql, type DbOrTx, type Tx } from "@/server/db";
import { recordEvent, recordEvents, type EventInput } from "@/server/events";
import type { MergeStrategy } from "../merge/commit";

/** Why an entry left the queue (`change.dequeued` `data.reason`). */
export type DequeueReason = "merged" | "cancelled" | "evaluation_failed" | "conflict" | "stale_workspace" | "rejected";

/** An entry leaving the queue, and why. */
type Leaving = { changeId: string; reason: DequeueReason; extra?: Record<string, unknown> };

/** A queue entry as the API shows it; `position` starts at 1 and is gapless. */
export interface QueuePosition {
  position: number;
  state: QueueEntry["state"];
  /** ISO 8601, as `Date#toISOString()` gives it. */
  enqueuedAt: string;
}

export interface EntryInput {
  strategy: MergeStrategy;
  enqueuedById: string;
  actor: string;
  auto: boolean;
}

/** The `change.queued` event of a change entering the queue (its evaluated tip is the commit that lands). */
export function queuedEvent(change: Change, input: EntryInput): EventInput {
  return {
    projectId: change.projectId,
    kind: "change.queued",
    actor: input.actor,
    data: { changeId: change.id, tipSha: change.tipSha, strategy: input.strategy, auto: input.auto },
  };
}

/** A queue entry as inserted: at the back of its project's queue, `waiting`. */
export type EntryRow = Pick<
  QueueEntry,
  "id" | "projectId" | "changeId" | "tipSha" | "strategy" | "enqueuedById" | "enqueuedAt"
>;

export const entryRow = (change: Change, input: EntryInput): EntryRow => ({
  id: randomUUID(),
  projectId: change.projectId,
  changeId: change.id,
  tipSha: change.tipSha,
  strategy: input.strategy,
  enqueuedById: input.enqueuedById,
  enqueuedAt: new Date(),
});

/** Inserts `EntryRow`s (the JSON parameter `rows`); a change already queued keeps its entry. */
export const insertEntriesSql = (rows: string) =>
  insertRowsSql(
    "QueueEntry",
    {
      id: "uuid",
      projectId: "uuid",
      changeId: "uuid",
      tipSha: "text",
      strategy: "text",
      enqueuedById: "uuid",
      enqueuedAt: "timestamp(3)",
    },
    'ON CONFLICT ("changeId") DO NOTHING',
    rows,
  );

const INSERT_ENTRY = insertEntriesSql("$1");

/** Inserts a change's queue entry at the back; answers false when it was already queued. Its caller records `queuedEvent`. */
export async function insertEntry(tx: Tx, change: Change, input: EntryInput): Promise<boolean> {
  return (await tx.$executeRawUnsafe(INSERT_ENTRY, JSON.stringify([entryRow(change, input)]))) > 0;
}

/**
 * Puts a change at the back of its project's queue (the commit that lands is its evaluated tip
 * now) with `change.queued`; a change already queued stays where it is. Answers whether it was added.
 */
export async function addEntry(tx: Tx, change: Change, input: EntryInput): Promise<boolean> {
  if (!(await insertEntry(tx, change, input))) return false;
  await recordEvent(tx, queuedEvent(change, input));
  return true;
}

/**
 * Deletes the leaving entries still there (a second remover finds none); answers their changes
 * and the `change.dequeued` events for the caller to record in the same transaction.
 */
export async function takeEntries(
  tx: Tx,
  projectId: string,
  leaving: Leaving[],
  actor: string,
): Promise<{ gone: string[]; events: EventInput[] }> {
  if (leaving.length === 0) return { gone: [], events: [] };
  const ids = leaving.map((l) => l.changeId);
  const removed = await tx.$queryRaw<
    Array<{ changeId: string }>
  >`DELETE FROM "QueueEntry" WHERE "changeId" = ANY(${ids}::uuid[]) RETURNING "changeId"::text AS "changeId"`;
  const gone = new Set(removed.map((r) => r.changeId));
  const events = leaving.flatMap(({ changeId, reason, extra }) =>
    gone.has(changeId)
      ? [{ projectId, kind: "change.dequeued" as const, actor, data: { changeId, reason, ...extra } }]
      : [],
  );
  return { gone: [...gone], events };
}

/** Takes entries out with `change.dequeued` each (recorded together); only the rows still there count. */
export async function removeEntries(tx: Tx, projectId: string, leaving: Leaving[], actor: string): Promise<string[]> {
  const { gone, events } = await takeEntries(tx, projectId, leaving, actor);
  await recordEvents(tx, events);
  return gone;
}

/** The project's queue in landing order. */
export function queuedEntries(client: DbOrTx, projectId: string, take: number) {
  return client.queueEntry.findMany({ where: { projectId }, orderBy: { seq: "asc" }, take });
}

/**
 * Where the change `changeId` (an SQL expression of its id) stands in its project's queue, as the
 * jsonb `{position, state, enqueuedAt}` a change read shows, or NULL when it is not queued: read
 * with the change itself, every change read of a queued change asks (its event stream's frames too).
 */
export const queuePositionSql = (changeId: string) => `(
  SELECT jsonb_build_object('position', (SELECT count(*) FROM "QueueEntry" AS a WHERE a."projectId" = e."projectId" AND a.seq < e.seq)::int + 1,
                            'state', e.state::text, 'enqueuedAt', ${isoTimestampSql("enqueuedAt")})
    FROM "QueueEntry" AS e WHERE e."changeId" = ${changeId})`;

/** Where a change stands in its project's queue, or null when it is not queued. */
export async function positionOf(client: DbOrTx, changeId: string): Promise<QueuePosition | null> {
  const [row] = await client.$queryRawUnsafe<Array<{ queue: QueuePosition | null }>>(
    `SELECT ${queuePositionSql("$1::uuid")} AS queue`,
    changeId,
  );
  return row?.queue ?? null;
}
