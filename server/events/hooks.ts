import type { DbOrTx } from "@/server/db";

/** A recorded event, as a hook sees it. */
export interface RecordedEvent {
  id: string;
  projectId: string | null;
  kind: string;
  actor: string;
  data: Record<string, unknown>;
}

/**
 * Runs in the transaction that records the events: its writes commit or roll back with them. It gets
 * every event of its kinds recorded together (a landing's merged changes), oldest first, so it can
 * act on them set-based.
 */
export type EventHook = (tx: DbOrTx, events: RecordedEvent[]) => Promise<void>;

// On globalThis: Next.js loads separate module copies per entry point; a hook registered by one
// copy must run for events recorded by another.
const holder = globalThis as unknown as { __svcEventHooks?: Map<string, Map<string, EventHook>> };
const hooks = (holder.__svcEventHooks ??= new Map<string, Map<string, EventHook>>());

/**
 * Lets an area act on a kind of event without the recorder importing it (workspace keys are
 * revoked when their change is merged or rejected). `name` makes registration idempotent across
 * module copies. Registered at module load of the area's front door.
 */
export function onEventRecorded(kinds: string[], name: string, hook: EventHook): void {
  for (const kind of kinds) {
    let byName = hooks.get(kind);
    if (!byName) hooks.set(kind, (byName = new Map<string, EventHook>()));
    byName.set(name, hook);
  }
}

/** Whether any hook acts on events of these kinds. */
export const hasEventHooks = (kinds: string[]): boolean => kinds.some((kind) => (hooks.get(kind)?.size ?? 0) > 0);

/** Calls each hook once with the events of its kinds, in the order of the hooks' first event. */
export async function runEventHooks(tx: DbOrTx, events: RecordedEvent[]): Promise<void> {
  const calls = new Map<EventHook, RecordedEvent[]>();
  for (const event of events) {
    for (const hook of hooks.get(event.kind)?.values() ?? []) {
      const batch = calls.get(hook);
      if (batch) batch.push(event);
      else calls.set(hook, [event]);
    }
  }
  for (const [hook, batch] of calls) await hook(tx, batch);
}
