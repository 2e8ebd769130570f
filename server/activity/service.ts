import type { DomainEvent } from "@/server/generated/prisma/client";
import { db } from "@/server/db";
import type { Identity } from "@/server/auth";
import { projectPath, requireProject } from "@/server/projects";

export interface ActivityEventView {
  id: string;
  kind: string;
  actor: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

export const activityEventView = (event: DomainEvent): ActivityEventView => ({
  id: event.id,
  kind: event.kind,
  actor: event.actor,
  occurredAt: event.occurredAt.toISOString(),
  data: (event.data ?? {}) as Record<string, unknown>,
});

/** A project's domain events, newest first (by outbox sequence, which is commit order per writer). */
export async function projectActivity(identity: Identity, ref: { namespace: string; slug: string }, limit: number) {
  const { project } = await requireProject(identity, { namespace: ref.namespace, slug: ref.slug }, "read");
  const prisma = await db();
  const events = await prisma.domainEvent.findMany({
    where: { projectId: project.id },
    orderBy: { seq: "desc" },
    take: limit,
  });
  return {
    namespace: project.namespace,
    slug: project.slug,
    path: projectPath(project),
    events: events.map(activityEventView),
  };
}
