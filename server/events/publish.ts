import { inngest, wakeExecutors } from "@/server/jobs";
import { database, type Database } from "@/server/db";
import { interestsSql } from "./interests";
import { log } from "@/server/log";

/** The Inngest event every outbox row becomes (`domainJobEventsSql`); webhooks and other consumers subscribe to it. */
export const DOMAIN_EVENT = "svc/domain.event";

const BATCH = 100;

/**
 * The job events of the outbox rows of `rows` (an SQL relation with the columns of "DomainEvent"),
 * one per row, as SQL yielding (id, name, data, position): what the executor or Inngest is handed.
 * Its id is derived from the row, so a re-send after a crash (sent, not yet marked) is deduplicated
 * by Inngest and by the embedded event store alike. `data`: `workspace`, the workspace the event is
 * about (a push to it), always a string ("" when none), so a concurrency key may concatenate it (CEL
 * refuses a missing field); then one boolean per registered interest (interests.ts), as it stood
 * when the event was handed over: `webhooks` (the project has an active webhook: the webhooks'
 * fan-out starts no run for an event nobody can hear, most of a fleet's events) and
 * `promotedChanges` (the project has a promoted change: a workspace push starts no follow run
 * otherwise, one per agent's commit). The interests are read once per project.
 */
export const domainJobEventsSql = (rows: string) => `
SELECT 'domain-' || r.id::text AS id, '${DOMAIN_EVENT}' AS name,
       jsonb_build_object('eventId', r.id::text, 'projectId', r."projectId"::text, 'kind', r.kind,
                          'workspace', CASE WHEN jsonb_typeof(r.data->'workspace') = 'string' THEN r.data->>'workspace' ELSE '' END)
         || i.fields AS data,
       r.seq AS position
  FROM ${rows} AS r
  JOIN (SELECT p.id, ${interestsSql("p.id")} AS fields FROM (SELECT DISTINCT "projectId" AS id FROM ${rows}) AS p) AS i
    ON i.id IS NOT DISTINCT FROM r."projectId"`;

const pendingSql = (lock: string) => `
WITH pending AS (SELECT seq, id, "projectId", kind, data FROM "DomainEvent" WHERE "dispatchedAt" IS NULL ORDER BY seq LIMIT ${BATCH} ${lock})
SELECT e.position AS seq, e.id, e.name, e.data FROM (${domainJobEventsSql("pending")}) AS e ORDER BY e.position`;

interface PendingEvent {
  seq: bigint;
  id: string;
  name: string;
  data: Record<string, unknown>;
}

/**
 * Sends and marks one batch. On PostgreSQL the rows stay locked (SKIP LOCKED for other instances)
 * from selection to marking, so two instances never send the same rows. PGlite belongs to this one
 * process, where publishing is serialized instead (see `publishPendingEvents`), and must not hold a
 * transaction open across send(), which writes through the same single connection.
 */
async function publishBatch(db: Database): Promise<number> {
  const send = (events: PendingEvent[]) => inngest.send(events.map(({ id, name, data }) => ({ id, name, data })));
  const mark = (events: PendingEvent[]) => ({
    where: { seq: { in: events.map((event) => event.seq) } },
    data: { dispatchedAt: new Date() },
  });
  if (db.kind === "postgres") {
    return db.prisma.$transaction(
      async (tx) => {
        const events = await tx.$queryRawUnsafe<PendingEvent[]>(pendingSql("FOR UPDATE SKIP LOCKED"));
        if (events.length) {
          await send(events);
          await tx.domainEvent.updateMany(mark(events));
        }
        return events.length;
      },
      { maxWait: 30_000, timeout: 60_000 },
    );
  }
  const events = await db.prisma.$queryRawUnsafe<PendingEvent[]>(pendingSql(""));
  if (events.length) {
    await send(events);
    await db.prisma.domainEvent.updateMany(mark(events));
  }
  return events.length;
}

interface OutboxState {
  running: Promise<number> | null;
  queued: Promise<number> | null;
  /** Rows this process recorded undispatched (outside a transaction, or for an Inngest server), or left from before it started. */
  undispatched: boolean;
}

const holder = globalThis as unknown as { __svcOutbox?: OutboxState };
const outbox = () => (holder.__svcOutbox ??= { running: null, queued: null, undispatched: true });

/** Recording left rows for the publisher: the next `publishAfterCommit` sends them. */
export function noteUndispatched(): void {
  outbox().undispatched = true;
}

/**
 * Sends one `svc/domain.event` (`domainJobEventsSql`) per undispatched DomainEvent, in order,
 * and marks them dispatched; answers how many. Calls in one process run one at a time, and calls
 * made while one is waiting share it.
 */
export function publishPendingEvents(): Promise<number> {
  const state = outbox();
  if (state.queued) return state.queued;
  const queued: Promise<number> = (state.running ?? Promise.resolve(0))
    .catch(() => 0)
    .then(async () => {
      state.queued = null;
      state.running = queued;
      const db = await database();
      let total = 0;
      for (let sent = BATCH; sent === BATCH; total += sent) sent = await publishBatch(db);
      return total;
    })
    .finally(() => {
      if (state.running === queued) state.running = null;
    });
  state.queued = queued;
  return queued;
}

/**
 * Call right after a transaction that recorded events commits: dispatches them now instead of at
 * the next sweep. Events recorded in a transaction in embedded mode were stored for the executor
 * with it, so this only wakes the executor; rows left undispatched are sent and marked. Never
 * throws (the sweep retries what fails); await it so the work is done when the request ends.
 */
export async function publishAfterCommit(): Promise<void> {
  const state = outbox();
  try {
    if (state.undispatched) {
      state.undispatched = false;
      await publishPendingEvents();
    }
  } catch (error) {
    state.undispatched = true;
    log().error({ err: error }, "events: publishing the outbox failed; the sweep will retry");
  }
  wakeExecutors();
}
