import { db } from "@/server/db";

/** One recorded domain event by id (what a `svc/domain.event` job reads beyond kind and project), or null. */
export async function findDomainEvent(id: string): Promise<{ id: string; projectId: string | null; kind: string; data: Record<string, unknown> } | null> {
  const row = await (await db()).domainEvent.findUnique({ where: { id }, select: { id: true, projectId: true, kind: true, data: true } });
  return row ? { ...row, data: (row.data ?? {}) as Record<string, unknown> } : null;
}
