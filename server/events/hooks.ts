import type { DbOrTx } from "@/server/db";

/** A recorded event, as a hook sees it. */
export interface RecordedEvent {
  id: string;
  projectId: string | null;
  kind: string;
  actor: string;
  data: Record<string, unknown>;
}

/** Runs in the transaction that records the event: its writes commit or roll back with it. */
export type EventHook = (tx: DbOrTx, event: RecordedEvent) => Promise<void>;

// On globalThis: Next.js loads separate module copies per entry point; a hook registered by one
// copy must run for events recorded by another.
const holder = globalThis as unknown as { __svcEventHooks?: Map<string, Map<string, EventHook>> };
const hooks = (holder.__svcEventHooks ??= new Map());

/**
 * Lets an area act on a kind of event without the recorder importing it (workspace keys are
 * revoked when their change is merged or rejected). `name` makes registration idempotent across
 * module copies. Registered at module load of the area's front door.
 */
export function onEventRecorded(kinds: string[], name: string, hook: EventHook): void {
  for (const kind of kinds) {
    let byName = hooks.get(kind);
    if (!byName) hooks.set(kind, (byName = new Map()));
    byName.set(name, hook);
  }
}

export async function runEventHooks(tx: DbOrTx, event: RecordedEvent): Promise<void> {
  for (const hook of hooks.get(event.kind)?.values() ?? []) await hook(tx, event);
}
