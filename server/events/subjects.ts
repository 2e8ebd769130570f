import { z } from "zod";
import { db } from "@/server/db";
import type { EventSubject } from "./sentence";

type EventLike = { kind: string; data: Record<string, unknown> };

const changeIdOf = (event: EventLike) =>
  event.kind.startsWith("change.") && typeof event.data.changeId === "string" ? event.data.changeId : null;

/**
 * What each event is about: an issue's number and title from its own data; a change's from its row
 * (events from before changes had numbers carry only its id), in one read for the whole list.
 */
export async function eventSubjects(events: EventLike[]): Promise<Array<EventSubject | null>> {
  const ids = [...new Set(events.map(changeIdOf).filter((id): id is string => id !== null))];
  const rows = ids.length
    ? await (
        await db()
      ).change.findMany({ where: { id: { in: ids } }, select: { id: true, number: true, title: true } })
    : [];
  const changes = new Map(rows.map((row) => [row.id, row]));
  return events.map((event): EventSubject | null => {
    const changeId = changeIdOf(event);
    if (changeId) {
      const row = changes.get(changeId);
      return { kind: "change", id: changeId, number: row?.number ?? null, title: row?.title ?? null };
    }
    if (event.kind.startsWith("issue.") && typeof event.data.number === "number")
      return {
        kind: "issue",
        id: null,
        number: event.data.number,
        title: typeof event.data.title === "string" ? event.data.title : null,
      };
    return null;
  });
}

/** The subject in an API answer (the activity list, a profile): additive beside the event's own data. */
export const eventSubjectOutput = () =>
  z
    .object({
      kind: z.enum(["change", "issue"]),
      id: z.string().nullable(),
      number: z.number().int().nullable(),
      title: z.string().nullable(),
    })
    .nullable();
