import Link from "next/link";
import { LabelChip } from "../../../../_components/label-chip";
import { Markdown } from "../../../../_components/markdown";
import { Person } from "../../../../_components/person";
import { RelativeTime } from "../../../../_components/relative-time";
import { actorText } from "../../../../_lib/people";

interface Entry {
  id: string;
  kind: "issue.opened" | "issue.closed" | "issue.reopened" | "issue.labeled" | "issue.assigned" | "issue.linked";
  actor: string;
  occurredAt: string;
  added: string[];
  removed: string[];
  assignee: string | null;
  changeId: string | null;
}

interface Comment {
  id: string;
  body: string;
  author: string | null;
  createdAt: string;
}

/** What one event did, in words, after the name of who did it. */
function EventText({ entry, base }: { entry: Entry; base: string }) {
  const labels = (names: string[]) =>
    names.map((name) => (
      <LabelChip key={name} name={name} href={`${base}/issues?${new URLSearchParams({ label: name })}`} />
    ));
  const change = entry.changeId && <Link href={`${base}/changes/${entry.changeId}`}>a change</Link>;
  switch (entry.kind) {
    case "issue.opened":
      return <>opened this issue</>;
    case "issue.closed":
      return entry.changeId ? <>closed this issue by merging {change}</> : <>closed this issue</>;
    case "issue.reopened":
      return <>reopened this issue</>;
    case "issue.labeled":
      return (
        <>
          {entry.added.length > 0 && <>added {labels(entry.added)}</>}
          {entry.added.length > 0 && entry.removed.length > 0 && " and "}
          {entry.removed.length > 0 && <>removed {labels(entry.removed)}</>}
        </>
      );
    case "issue.assigned":
      return entry.assignee ? (
        <>
          assigned <Person actor={`user:${entry.assignee}`} />
        </>
      ) : (
        <>removed the assignee</>
      );
    case "issue.linked":
      return entry.changeId ? <>linked {change}</> : <>unlinked the change</>;
  }
}

/** The issue's comments and what happened to it (closed, labels, assignee, linked change), oldest first. */
export async function IssueTimeline({
  entries,
  comments,
  base,
}: {
  entries: Entry[];
  comments: Comment[];
  base: string;
}) {
  const items = [
    ...entries.map((entry) => ({ at: entry.occurredAt, entry, comment: null })),
    ...comments.map((comment) => ({ at: comment.createdAt, entry: null, comment })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  const labels = new Map(
    await Promise.all(comments.map(async (comment) => [comment.id, await actorText(comment.author)] as const)),
  );
  if (items.length === 0) return <p className="muted">Nothing happened yet.</p>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {items.map(({ entry, comment }) =>
        comment ? (
          <li key={comment.id}>
            <article className="thread" aria-label={`Comment by ${labels.get(comment.id)}`}>
              <p>
                <strong>
                  <Person actor={comment.author} />
                </strong>{" "}
                commented <RelativeTime iso={comment.createdAt} />
              </p>
              <Markdown source={comment.body} context={{ base }} />
            </article>
          </li>
        ) : (
          <li key={entry.id} className="event">
            <Person actor={entry.actor} /> <EventText entry={entry} base={base} />{" "}
            <RelativeTime iso={entry.occurredAt} />
          </li>
        ),
      )}
    </ol>
  );
}
