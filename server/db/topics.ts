/** The one PostgreSQL channel on which instances tell each other what to drop or wake (invalidation.ts). */
export const CHANNEL = "svc_invalidate";

export interface InvalidationTopic {
  /** Drops what is cached under `key` (or wakes what waits on it). */
  drop(key: string): void;
  /** Drops everything: notifications may have been missed while disconnected. */
  dropAll(): void;
}

// On globalThis: Next.js loads separate module copies per entry point (the listener starts in one,
// caches register from others).
const holder = globalThis as unknown as { __svcInvalidationTopics?: Map<string, InvalidationTopic> };
export const topics = (): Map<string, InvalidationTopic> =>
  (holder.__svcInvalidationTopics ??= new Map<string, InvalidationTopic>());

/** Registers a cache's handlers under `topic` (at module load). */
export function onInvalidation(topic: string, handlers: InvalidationTopic): void {
  topics().set(topic, handlers);
}

/** Hands a `topic\nkey` payload to its topic's handler. */
export function dispatchNotification(payload: string): void {
  const newline = payload.indexOf("\n");
  if (newline < 0) return;
  topics()
    .get(payload.slice(0, newline))
    ?.drop(payload.slice(newline + 1));
}

/** Drops every cache and wakes every waiter: notifications may have been missed. */
export function dropAllTopics(): void {
  for (const topic of topics().values()) topic.dropAll();
}
