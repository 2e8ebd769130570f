import { registerCache } from "@/server/caches";
import { announcement, db, onInvalidation } from "@/server/db";

/**
 * A change's transitions, pushed to whoever follows it (the change event stream, MCP resource
 * subscriptions). Recording one announces the change on commit (PostgreSQL NOTIFY, delivered to
 * every instance; in-process on PGlite); each follower then reads what it has not seen from the
 * outbox. Nothing polls: an idle follower costs a map entry.
 */
export const CHANGE_TRANSITIONS = [
  "change.evaluated",
  "change.reviewed",
  "change.queued",
  "change.dequeued",
  "change.merged",
  "change.rejected",
  "change.commented",
] as const;

/** The transitions after which a change never moves again: its stream ends. */
export const FINAL_TRANSITIONS: readonly string[] = ["change.merged", "change.rejected"];

const TOPIC = "change-events";
const transitions: ReadonlySet<string> = new Set(CHANGE_TRANSITIONS);

// On globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcChangeWatchers?: Map<string, Set<() => void>> };
const watchers = (holder.__svcChangeWatchers ??= new Map<string, Set<() => void>>());
registerCache("events.changeWatchers", {
  entries: () => watchers.size,
  limit: null,
  unit: "changes followed",
  bound: "a change is removed with its last follower (event streams, MCP subscriptions)",
});

/** Wakes this instance's followers of the change (they read what they have not seen). */
export const wakeFollowers = (changeId: string) => {
  for (const listener of watchers.get(changeId) ?? []) listener();
};

// A notification's key is the ids of the changes that moved, comma-separated (one per transaction).
const SEPARATOR = ",";
// pg_notify payloads are limited to 8000 bytes: 150 ids of 37 bytes fit with room to spare.
const IDS_PER_NOTIFICATION = 150;

onInvalidation(TOPIC, {
  drop: (key) => {
    for (const changeId of key.split(SEPARATOR)) wakeFollowers(changeId);
  },
  // Notifications may have been missed while disconnected: every follower reads again.
  dropAll: () => {
    for (const changeId of watchers.keys()) wakeFollowers(changeId);
  },
});

/** Calls `listener` after each committed transition of the change; answers the unsubscribe. */
export function watchChange(changeId: string, listener: () => void): () => void {
  let set = watchers.get(changeId);
  if (!set) watchers.set(changeId, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && watchers.get(changeId) === set) watchers.delete(changeId);
  };
}

/**
 * The changes the events move and the announcements (`announcement`, one per 150 of them) that make
 * their followers hear of it when the recording commits: the recording statement sends them.
 */
export function transitionAnnouncements(events: Array<{ kind: string; data: Record<string, unknown> }>): {
  moved: string[];
  announcements: string[];
} {
  const moved = [
    ...new Set(
      events.flatMap(({ kind, data }) =>
        transitions.has(kind) && typeof data.changeId === "string" ? [data.changeId] : [],
      ),
    ),
  ];
  const announcements: string[] = [];
  for (let i = 0; i < moved.length; i += IDS_PER_NOTIFICATION)
    announcements.push(announcement(TOPIC, moved.slice(i, i + IDS_PER_NOTIFICATION).join(SEPARATOR)));
  return { moved, announcements };
}

export interface Transition {
  id: string;
  seq: bigint;
  kind: string;
}

// The kinds are constants of this module, never input: inlined, they keep the fragment parameter-free.
const TRANSITION_KINDS_SQL = `ARRAY[${CHANGE_TRANSITIONS.map((kind) => `'${kind}'`).join(", ")}]`;
const transitionRowsSql = (changeId: string, projectId: string, afterSeq: string) => `
  FROM "DomainEvent" AS d
 WHERE d."projectId" = ${projectId} AND d.kind = ANY(${TRANSITION_KINDS_SQL}) AND d.data->>'changeId' = ${changeId}::text AND d.seq > ${afterSeq}`;

const TRANSITION_JSON = "jsonb_build_object('id', d.id::text, 'seq', d.seq::text, 'kind', d.kind)";

type TransitionJson = { id: string; seq: string; kind: string };

export const transitionFromJson = (row: TransitionJson): Transition => ({ ...row, seq: BigInt(row.seq) });

/** The change's transitions after `afterSeq` (all of them without), oldest first. */
export async function transitionsOf(
  change: { id: string; projectId: string },
  afterSeq?: bigint,
): Promise<Transition[]> {
  // Raw: Prisma's query compiler compiled the JSON-path filter anew on every call (a stream reads
  // this on every wake-up).
  return (await db()).$queryRawUnsafe<Transition[]>(
    `SELECT d.id::text AS id, d.seq, d.kind ${transitionRowsSql("$1::uuid", "$2::uuid", "$3::bigint")} ORDER BY d.seq`,
    change.id,
    change.projectId,
    afterSeq ?? 0n,
  );
}

/**
 * The change's latest transition (null: none yet), walking the project's events backwards from the
 * newest and stopping at the first of the change's: a new change's costs a few rows, where reading
 * every transition to take the last visited the project's whole history (every event of a fleet's
 * project, on each stream's opening).
 */
export async function latestTransition(change: { id: string; projectId: string }): Promise<Transition | null> {
  const [row] = await (
    await db()
  ).$queryRawUnsafe<Array<{ latest: TransitionJson | null }>>(
    `SELECT ${latestTransitionSql("$1::uuid", "$2::uuid")} AS latest`,
    change.id,
    change.projectId,
  );
  return row?.latest ? transitionFromJson(row.latest) : null;
}

/** `latestTransition` as an SQL subquery of one JSON object or null, for a read that shows it with the change in one snapshot. */
export const latestTransitionSql = (changeId: string, projectId: string) =>
  `(SELECT ${TRANSITION_JSON} ${transitionRowsSql(changeId, projectId, "0")} ORDER BY d.seq DESC LIMIT 1)`;

/**
 * The transitions of the change `changeId` of project `projectId` (SQL expressions) after `afterSeq`,
 * as an SQL subquery of one JSON array (seq as text), oldest first: for a read that shows them with
 * the change in one snapshot. `transitionsFromJson` turns it back into Transitions.
 */
export const transitionsSql = (changeId: string, projectId: string, afterSeq: string) =>
  `(SELECT coalesce(jsonb_agg(${TRANSITION_JSON} ORDER BY d.seq), '[]'::jsonb) ${transitionRowsSql(changeId, projectId, afterSeq)})`;

export const transitionsFromJson = (rows: TransitionJson[]): Transition[] => rows.map(transitionFromJson);

/** The position of one of the change's events (a Last-Event-ID), or null when it is not one. */
export async function transitionPosition(
  change: { id: string; projectId: string },
  eventId: string,
): Promise<bigint | null> {
  if (!/^[0-9a-f-]{36}$/i.test(eventId)) return null;
  const row = await (
    await db()
  ).domainEvent.findUnique({ where: { id: eventId }, select: { seq: true, projectId: true, data: true } });
  if (!row || row.projectId !== change.projectId || (row.data as { changeId?: unknown })?.changeId !== change.id)
    return null;
  return row.seq;
}
