import type { DomainEvent } from "@/server/generated/prisma/client";
import { db } from "@/server/db";
import { notFound } from "@/server/errors";
import type { Identity } from "@/server/auth";
import { projectPath, requireProject } from "@/server/projects";
import { eventSubjects, type EventSubject } from "@/server/events";

export interface ActivityEventView {
  id: string;
  kind: string;
  actor: string;
  occurredAt: string;
  data: Record<string, unknown>;
  subject: EventSubject | null;
}

/** The views of a list of events, each with the change or issue it is about. */
export async function activityEventViews(events: DomainEvent[]): Promise<ActivityEventView[]> {
  const views = events.map((event) => ({
    id: event.id,
    kind: event.kind,
    actor: event.actor,
    occurredAt: event.occurredAt.toISOString(),
    data: (event.data ?? {}) as Record<string, unknown>,
  }));
  const subjects = await eventSubjects(views);
  return views.map((view, i) => ({ ...view, subject: subjects[i] }));
}

/**
 * A project's domain events, newest first (by outbox sequence, which is commit order per writer);
 * `before` (an event id of this project: the previous page's last) reads the page older than it.
 */
export async function projectActivity(
  identity: Identity,
  ref: { namespace: string; slug: string },
  page: { limit: number; before?: string },
) {
  const { project } = await requireProject(identity, { namespace: ref.namespace, slug: ref.slug }, "read");
  const prisma = await db();
  let beforeSeq: bigint | undefined;
  if (page.before !== undefined) {
    const cursor = /^[0-9a-f-]{36}$/i.test(page.before)
      ? await prisma.domainEvent.findFirst({ where: { id: page.before, projectId: project.id }, select: { seq: true } })
      : null;
    if (!cursor) throw notFound("No event of this project has that id");
    beforeSeq = cursor.seq;
  }
  const events = await prisma.domainEvent.findMany({
    where: { projectId: project.id, seq: beforeSeq === undefined ? undefined : { lt: beforeSeq } },
    orderBy: { seq: "desc" },
    take: page.limit,
  });
  return {
    namespace: project.namespace,
    slug: project.slug,
    path: projectPath(project),
    events: await activityEventViews(events),
  };
}
