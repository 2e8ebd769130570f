import { inngest, wakeExecutors } from "@/server/jobs";
import { database, type Database, type DbOrTx } from "@/server/db";
import { projectInterests } from "./interests";

/** The Inngest event every outbox row becomes (`domainJobEvent`); webhooks and other consumers subscribe to it. */
export const DOMAIN_EVENT = "svc/domain.event";

const BATCH = 100;

interface OutboxRow {
  seq: bigint;
  id: string;
  projectId: string | null;
  kind: string;
  data: Record<string, unknown>;
}

type OutgoingEvent = Pick<OutboxRow, "id" | "projectId" | "kind" | "data">;

/**
 * The job event of an outbox row. Its id is derived from the row, so a re-send after a crash (sent,
 * not yet marked) is deduplicated by Inngest and by the embedded event store alike. `workspace`: the
 * workspace the event is about (a push to it), always a string ("" when none), so a concurrency key
 * may concatenate it (CEL refuses a missing field). Then one boolean per registered interest
 * (interests.ts), as it stood when the event was handed over: `webhooks` (the project has an active
 * webhook: the webhooks' fan-out starts no run for an event nobody can hear, most of a fleet's
 * events) and `promotedChanges` (the project has a promoted change: a workspace push starts no
 * follow run otherwise, one per agent's commit).
 */
const domainJobEvent = (row: OutgoingEvent, interests: Record<string, boolean>) => ({
  id: `domain-${row.id}`,
  name: DOMAIN_EVENT,
  data: { eventId: row.id, projectId: row.projectId, kind: row.kind, workspace: typeof row.data.workspace === "string" ? row.data.workspace : "", ...interests },
});

/** The job events of outbox rows (see `domainJobEvent`), read in `client`. */
export async function domainJobEvents(client: DbOrTx, rows: OutgoingEvent[]) {
  const interestsOf = await projectInterests(client, rows.map((row) => row.projectId));
  return rows.map((row) => domainJobEvent(row, interestsOf(row.projectId)));
}

const SELECT_PENDING = `SELECT seq, id, "projectId", kind, data FROM "DomainEvent" WHERE "dispatchedAt" IS NULL ORDER BY seq LIMIT ${BATCH}`;

/**
 * Sends and marks one batch. On PostgreSQL the rows stay locked (SKIP LOCKED for other instances)
 * from selection to marking, so two instances never send the same rows. PGlite belongs to this one
 * process, where publishing is serialized instead (see `publishPendingEvents`), and must not hold a
 * transaction open across send(), which writes through the same single connection.
 */
async function publishBatch(db: Database): Promise<number> {
  const mark = (rows: OutboxRow[]) => ({ where: { seq: { in: rows.map((row) => row.seq) } }, data: { dispatchedAt: new Date() } });
  if (db.kind === "postgres") {
    return db.prisma.$transaction(
      async (tx) => {
        const rows = await tx.$queryRawUnsafe<OutboxRow[]>(`${SELECT_PENDING} FOR UPDATE SKIP LOCKED`);
        if (rows.length) {
          await inngest.send(await domainJobEvents(tx, rows));
          await tx.domainEvent.updateMany(mark(rows));
        }
        return rows.length;
      },
      { maxWait: 30_000, timeout: 60_000 },
    );
  }
  const rows = await db.prisma.$queryRawUnsafe<OutboxRow[]>(SELECT_PENDING);
  if (rows.length) {
    await inngest.send(await domainJobEvents(db.prisma, rows));
    await db.prisma.domainEvent.updateMany(mark(rows));
  }
  return rows.length;
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
 * Sends one `svc/domain.event` (`domainJobEvent`) per undispatched DomainEvent, in order,
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
    console.error("[events] publishing the outbox failed; the sweep will retry", error);
  }
  wakeExecutors();
}
