import { db } from "@/server/db";

/** One recorded domain event by id (what a `svc/domain.event` job reads beyond kind and project), or null. */
export async function findDomainEvent(
  id: string,
): Promise<{ id: string; projectId: string | null; kind: string; data: Record<string, unknown> } | null> {
  const row = await (
    await db()
  ).domainEvent.findUnique({ where: { id }, select: { id: true, projectId: true, kind: true, data: true } });
  return row ? { ...row, data: (row.data ?? {}) as Record<string, unknown> } : null;
}

export interface EventRow {
  id: string;
  projectId: string | null;
  kind: string;
  actor: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

const eventRow = (row: {
  id: string;
  projectId: string | null;
  kind: string;
  actor: string;
  occurredAt: Date;
  data: unknown;
}): EventRow => ({
  id: row.id,
  projectId: row.projectId,
  kind: row.kind,
  actor: row.actor,
  occurredAt: row.occurredAt.toISOString(),
  data: (row.data ?? {}) as Record<string, unknown>,
});

/** An actor's newest events on live projects that are public or among `projectIds`, newest first. */
export async function eventsByActor(actor: string, projectIds: string[], limit: number): Promise<EventRow[]> {
  const rows = await (
    await db()
  ).domainEvent.findMany({
    where: { actor, project: { deletingAt: null, OR: [{ visibility: "public" }, { id: { in: projectIds } }] } },
    orderBy: { seq: "desc" },
    take: limit,
  });
  return rows.map(eventRow);
}

/** The events of one project whose `data` names an entity (`{issueId: ...}`), oldest first. */
export async function eventsAbout(
  projectId: string,
  key: string,
  value: string,
  kinds: readonly string[],
): Promise<EventRow[]> {
  const rows = await (
    await db()
  ).domainEvent.findMany({
    where: { projectId, kind: { in: [...kinds] }, data: { path: [key], equals: value } },
    orderBy: { seq: "asc" },
  });
  return rows.map(eventRow);
}
