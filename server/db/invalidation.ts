import { config } from "@/server/config";
import { database, type Database, type DbOrTx } from "./client";
import { CHANNEL, dispatchNotification, dropAllTopics } from "./topics";
import { log } from "@/server/log";

/**
 * Instances keep small caches (credentials, access grants) that a write in another instance can
 * make stale. The writer drops its own entries at once and, on PostgreSQL, announces the topic and
 * key on one channel; every instance LISTENs there and drops them too. A cache's TTL only bounds
 * what a lost notification could leave behind.
 */
const RECONNECT_MS = 1000;

/** What `announceOnCommit(tx, topic, key)` sends, for a statement that announces it itself (`announcementsSql`). */
export const announcement = (topic: string, key: string) => `${topic}\n${key}`;

/** Announcements asked for in this turn of the event loop, and the promise of their one statement. */
const pending: { announcements: Set<string>; sent: Promise<void> | null } = { announcements: new Set(), sent: null };

/**
 * Tells the other instances to drop `key` of `topic` (call after the write has committed). What a
 * turn of the event loop announces goes in one statement, each announcement once: a fleet's burst
 * sent 1,218 single `pg_notify` statements in 2 minutes, most of them the same wake-up (runs to
 * take, a project's queue) asked for by every change of a batch. Resolves once they are sent.
 */
export function announceInvalidation(topic: string, key: string): Promise<void> {
  pending.announcements.add(announcement(topic, key));
  if (pending.sent) return pending.sent;
  // The database of the writes announced, taken now: asked for at the end of the turn, after a
  // shutdown (or a test file's end) closed it, it opened another one (a new PGlite in DATA_DIR).
  const written = database();
  return (pending.sent = new Promise<void>((resolve) => setImmediate(resolve)).then(() => sendPending(written)));
}

async function sendPending(written: Promise<Database>): Promise<void> {
  const announcements = [...pending.announcements];
  pending.announcements.clear();
  pending.sent = null;
  try {
    const db = await written;
    if (db.kind === "postgres") await db.raw.query(announcementsSql("$1::text[]"), [announcements]);
  } catch (error) {
    log().error({ count: announcements.length, err: (error as Error).message }, "db: announcing invalidations failed");
  }
}

/**
 * Announces `key` of `topic` when `tx` commits (and never if it rolls back): PostgreSQL delivers a
 * notification made inside a transaction at its commit, to every instance listening, this one
 * included; PGlite does the same in-process (client.ts listens there). For a write whose effect
 * must be seen everywhere the moment it is durable: a revocation made inside someone else's
 * transaction, a change's transition.
 */
export async function announceOnCommit(tx: DbOrTx, topic: string, key: string): Promise<void> {
  await tx.$executeRawUnsafe("SELECT pg_notify($1, $2)", CHANNEL, announcement(topic, key));
}

/**
 * SQL that announces each of `payloads` (an SQL text[] of `announcement`s) as `announceOnCommit`
 * does, one row per payload: for a statement that writes and announces at once.
 */
export const announcementsSql = (payloads: string) =>
  `SELECT pg_notify('${CHANNEL}', payload) FROM unnest(${payloads}) AS payload`;

/**
 * On PostgreSQL, keeps one connection listening for other instances' invalidations. While it is
 * disconnected notifications are missed, so every registered cache is dropped when it reconnects.
 */
export async function startInvalidationListener(url = config.databaseUrl): Promise<{ stop(): Promise<void> }> {
  if (!url) return { stop: async () => {} };
  const pg = (await import("pg")).default;
  let client: InstanceType<typeof pg.Client> | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on("notification", (message) => {
      if (message.channel === CHANNEL && message.payload) dispatchNotification(message.payload);
    });
    next.on("error", (error) => {
      log().error({ err: error.message }, "db: the invalidation listener lost its connection");
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      log().error({ err: (error as Error).message }, "db: the invalidation listener could not connect");
      void next.end().catch(() => undefined);
      schedule();
      return;
    }
    if (stopped) return void (await next.end());
    client = next;
    dropAllTopics();
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_MS);
    retry.unref();
  };

  await connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
