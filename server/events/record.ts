import type { DbOrTx } from "@/server/db/client";

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
  // Not subscribable by name in the spec's list, but shown in activity.
  "push",
  "issue.reopened",
  "issue.commented",
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** The kinds a webhook may name in its `events` list (the spec's Events section). `*` covers every kind. */
export const SUBSCRIBABLE_EVENT_KINDS: readonly EventKind[] = EVENT_KINDS.filter(
  (kind) => kind !== "push" && kind !== "issue.reopened" && kind !== "issue.commented",
);

/**
 * Records a domain event in the outbox. Call it with the transaction that makes the change it
 * describes, so the event exists exactly when the change does. `actor` is from `actorOf()` or "system".
 */
export async function recordEvent(
  client: DbOrTx,
  event: { projectId: string | null; kind: EventKind; actor: string; data?: Record<string, unknown> },
): Promise<{ id: string; seq: bigint }> {
  return client.domainEvent.create({
    data: { projectId: event.projectId, kind: event.kind, actor: event.actor, data: (event.data ?? {}) as object },
    select: { id: true, seq: true },
  });
}
