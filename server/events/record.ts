import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";
import { announcementsSql, db, insertRowsSql, type DbOrTx } from "@/server/db";
import { currentKeyId } from "@/server/auth";
import { storedEventsSql } from "@/server/jobs";
import { domainJobEventsSql, noteUndispatched } from "./publish";
import { transitionAnnouncements, wakeFollowers } from "./change-watch";

/** Every event kind the service emits; webhooks subscribe to these names. */
export const EVENT_KINDS = [
  "change.created",
  "change.evaluated",
  "change.merged",
  "change.rejected",
  "change.reverted",
  "change.commented",
  "change.reviewed",
  "project.created",
  "project.imported",
  "workspace.created",
  "sync.completed",
  "issue.opened",
  "issue.closed",
  "deployment.requested",
  "deployment.succeeded",
  "deployment.failed",
  // Beyond the spec's list (docs/contracts.md#reading-code), subscribable by name.
  "tag.created",
  "tag.deleted",
  // Not subscribable by name in the spec's list, but shown in activity.
  "push",
  "issue.reopened",
  "issue.commented",
  // An issue's timeline (labels, assignee, linked change changed): shown in activity, delivered to `*` webhooks.
  "issue.labeled",
  "issue.assigned",
  "issue.linked",
  // Beyond the spec's list (docs/contracts.md#hosting-provider): shown in activity, delivered to `*` webhooks.
  "import.failed",
  // The merge queue (docs/contracts.md#merge-queue): subscribable by name, shown in activity.
  "change.queued",
  "change.dequeued",
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** The kinds a webhook may name in its `events` list (the spec's Events section). `*` covers every kind. */
const UNNAMED_KINDS: readonly EventKind[] = [
  "push",
  "issue.reopened",
  "issue.commented",
  "issue.labeled",
  "issue.assigned",
  "issue.linked",
  "import.failed",
];
export const SUBSCRIBABLE_EVENT_KINDS: readonly EventKind[] = EVENT_KINDS.filter(
  (kind) => !UNNAMED_KINDS.includes(kind),
);

// On globalThis: Next.js loads separate module copies per entry point.
interface RequestTracking {
  recorded: boolean;
  afterwards: Array<() => void>;
  ended: boolean;
}
const holder = globalThis as unknown as { __svcEventTracking?: AsyncLocalStorage<RequestTracking> };
const tracking = (holder.__svcEventTracking ??= new AsyncLocalStorage());

/** Runs `work` and tells whether it recorded any domain event (request pipelines publish then). */
export async function trackRecordedEvents<T>(work: () => Promise<T>): Promise<{ value: T; recorded: boolean }> {
  const store: RequestTracking = { recorded: false, afterwards: [], ended: false };
  try {
    const value = await tracking.run(store, work);
    return { value, recorded: store.recorded };
  } finally {
    store.ended = true;
    for (const task of store.afterwards.splice(0)) task();
  }
}

/**
 * Runs `task` when the request being handled ends (its transactions have committed or rolled back
 * by then), or at once outside a request, or once it has ended: work a request started and that
 * outlives it (the merge queue's run, woken by a commit) keeps the request's context, and a task
 * kept for a request that had ended was never run, and held what it closed over for as long as that
 * work lasted (a soak's heap snapshots found the queue's key revocations piling up that way).
 */
export function whenRequestEnds(task: () => void): void {
  const store = tracking.getStore();
  if (store && !store.ended) store.afterwards.push(task);
  else task();
}

export interface EventInput {
  projectId: string | null;
  kind: EventKind;
  actor: string;
  data?: Record<string, unknown>;
}

// Sequence numbers are taken in the order listed (see insertRowsSql).
const insertEventsSql = (rows: string) =>
  insertRowsSql(
    "DomainEvent",
    {
      id: "uuid",
      projectId: "uuid",
      kind: "text",
      actor: "text",
      data: "jsonb",
      occurredAt: "timestamp(3)",
      dispatchedAt: "timestamp(3)",
    },
    'RETURNING id, seq, "projectId", kind, data',
    rows,
  );

/**
 * The write a caller makes in the statement that records its events: data-modifying CTEs (`name AS
 * (INSERT ...)`, comma-separated) over the parameters `params` ($1 on), recorded atomically with
 * the events and without a transaction.
 */
export interface Alongside {
  ctes: string;
  params: unknown[];
  /** A SQL expression over the CTEs that the statement answers (how many rows a CTE changed, say). */
  answer?: string;
}

/**
 * The one statement that records events: the caller's write (`alongside`), the outbox rows, their
 * job events when they are stored with them (`jobEvents`), and the announcements of the changes
 * they move. The events' parameters follow the caller's (`first`: the rows, then the announcements).
 * One row per event, or one with a null id when there are none: each carries the alongside's answer.
 */
const recordingSql = (jobEvents: string | null, alongside: Alongside | null, first: number) => `
WITH ${alongside ? `${alongside.ctes},` : ""}
recorded AS (${insertEventsSql(`$${first}`)}),
${jobEvents ? `handed AS (${jobEvents}),` : ""}
announced AS (${announcementsSql(`$${first + 1}::text[]`)})
SELECT r.id::text AS id, r.seq, ${alongside?.answer ?? "NULL"} AS answer FROM (SELECT count(*) FROM announced) AS a LEFT JOIN recorded AS r ON true`;

/**
 * Records domain events in the outbox, in order, in one statement that also stores their job
 * events (embedded mode) and announces the changes they move.
 * Call it with the transaction that makes the change they describe, so the events exist exactly
 * when the change does. `actor` is from `actorOf()` or "system".
 */
export async function recordEvents(client: DbOrTx, events: EventInput[]): Promise<Array<{ id: string; seq: bigint }>> {
  return (await writeEvents(client, events, null)).recorded;
}

/**
 * `recordEvents` with the write they describe (`alongside`) in the same statement, in the caller's
 * transaction; answers the alongside's `answer`.
 */
export async function recordEventsWith(tx: DbOrTx, alongside: Alongside, events: EventInput[]): Promise<unknown> {
  return (await writeEvents(tx, events, alongside)).answer;
}

/**
 * Records events and the write they describe (`alongside`) in one statement, which needs no
 * transaction: the connection is held for that statement alone.
 */
export async function recordEventsAlongside(
  alongside: Alongside,
  events: EventInput[],
): Promise<Array<{ id: string; seq: bigint }>> {
  return (await writeEvents(await db(), events, alongside)).recorded;
}

type Written = { recorded: Array<{ id: string; seq: bigint }>; answer: unknown };

async function writeEvents(client: DbOrTx, events: EventInput[], alongside: Alongside | null): Promise<Written> {
  if (events.length === 0 && !alongside) return { recorded: [], answer: null };
  const store = tracking.getStore();
  if (store && events.length > 0) store.recorded = true;
  const keyId = currentKeyId();
  const recorded = events.map((event) => ({
    id: crypto.randomUUID(),
    projectId: event.projectId,
    kind: event.kind,
    actor: event.actor,
    data: keyId ? { ...event.data, keyId } : (event.data ?? {}),
  }));
  // Stored with the rows (embedded mode), the job events are dispatched as they are written, with
  // no publish afterwards. Otherwise (Inngest) the publisher sends and marks them after the commit.
  const jobEvents = storedEventsSql(domainJobEventsSql("recorded"));
  if (!jobEvents && events.length > 0) noteUndispatched();
  const occurredAt = new Date();
  const dispatchedAt = jobEvents ? occurredAt : null;
  const { moved, announcements } = transitionAnnouncements(recorded);
  const before = alongside?.params ?? [];
  const rows = await client.$queryRawUnsafe<Array<{ id: string | null; seq: bigint | null; answer: unknown }>>(
    recordingSql(jobEvents, alongside, before.length + 1),
    ...before,
    JSON.stringify(recorded.map((event) => ({ ...event, occurredAt, dispatchedAt }))),
    announcements,
  );
  const seqOf = new Map(rows.map((row) => [row.id, row.seq]));
  // This instance's followers need not wait for the notification's round trip (nor a listener).
  if (moved.length) whenRequestEnds(() => moved.forEach(wakeFollowers));
  return {
    recorded: recorded.map((event) => ({ id: event.id, seq: seqOf.get(event.id)! })),
    answer: rows[0]?.answer ?? null,
  };
}

/** Records one domain event (see `recordEvents`). */
export async function recordEvent(client: DbOrTx, event: EventInput): Promise<{ id: string; seq: bigint }> {
  const [row] = await recordEvents(client, [event]);
  return row;
}
