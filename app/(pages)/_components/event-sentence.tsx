import Link from "next/link";
import { eventSentence, subjectText, type EventSubject } from "@/server/api";
import { Person } from "./person";

/** Where a subject's page is: a change by its number (its id when it has none), an issue by its number. */
function subjectHref(project: string, subject: EventSubject): string | null {
  if (subject.kind === "issue") return subject.number === null ? null : `/${project}/issues/${subject.number}`;
  const address = subject.number ?? subject.id;
  return address === null ? null : `/${project}/changes/${address}`;
}

/**
 * An event as a sentence ("alice's agent fixer opened change #12 'Add retries'"), the actor linked
 * to their profile and the change or issue to its page. `project` is its path, `@ns/slug`.
 */
export function EventSentence({
  event,
  project,
}: {
  event: { kind: string; actor: string; data: Record<string, unknown>; subject: EventSubject | null };
  project: string | null;
}) {
  return eventSentence(event, event.subject).map((part, i) => {
    if ("text" in part) return <span key={i}>{part.text}</span>;
    if ("actor" in part) return <Person key={i} actor={part.actor} />;
    const href = project ? subjectHref(project, part.subject) : null;
    const text = subjectText(part.subject);
    return href ? (
      <Link key={i} href={href}>
        {text}
      </Link>
    ) : (
      <span key={i}>{text}</span>
    );
  });
}
