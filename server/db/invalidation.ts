import { config } from "@/server/config";
import { database } from "./client";

/**
 * Instances keep small caches (credentials, access grants) that a write in another instance can
 * make stale. The writer drops its own entries at once and, on PostgreSQL, announces the topic and
 * key on one channel; every instance LISTENs there and drops them too. A cache's TTL only bounds
 * what a lost notification could leave behind.
 */
const CHANNEL = "svc_invalidate";
const RECONNECT_MS = 1000;

export interface InvalidationTopic {
  /** Drops what is cached under `key`. */
  drop(key: string): void;
  /** Drops everything: notifications may have been missed while disconnected. */
  dropAll(): void;
}

// On globalThis: Next.js loads separate module copies per entry point (the listener starts in one,
// caches register from others).
const holder = globalThis as unknown as { __svcInvalidationTopics?: Map<string, InvalidationTopic> };
const topics = (holder.__svcInvalidationTopics ??= new Map());

/** Registers a cache's handlers under `topic` (at module load). */
export function onInvalidation(topic: string, handlers: InvalidationTopic): void {
  topics.set(topic, handlers);
}

/** Tells the other instances to drop `key` of `topic` (call after the write has committed). */
export async function announceInvalidation(topic: string, key: string): Promise<void> {
  try {
    const db = await database();
    if (db.kind === "postgres") await db.raw.query("SELECT pg_notify($1, $2)", [CHANNEL, `${topic}\n${key}`]);
  } catch (error) {
    console.error(`[db] announcing a ${topic} invalidation failed:`, (error as Error).message);
  }
}

function dispatch(payload: string): void {
  const newline = payload.indexOf("\n");
  if (newline < 0) return;
  topics.get(payload.slice(0, newline))?.drop(payload.slice(newline + 1));
}

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
      if (message.channel === CHANNEL && message.payload) dispatch(message.payload);
    });
    next.on("error", (error) => {
      console.error("[db] invalidation listener lost its connection:", error.message);
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      console.error("[db] invalidation listener could not connect:", (error as Error).message);
      void next.end().catch(() => undefined);
      schedule();
      return;
    }
    if (stopped) return void (await next.end());
    client = next;
    for (const topic of topics.values()) topic.dropAll();
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
