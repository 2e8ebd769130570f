/** What an event is about, when it is one change or one issue of the project. */
export interface EventSubject {
  kind: "change" | "issue";
  /** The change's id (a change from before numbers had none in its event). */
  id: string | null;
  number: number | null;
  title: string | null;
}

/** A sentence in parts: words, the actor (a person or agent, named by whoever renders it), the subject. */
export type SentencePart = { text: string } | { actor: string } | { subject: EventSubject };

const REVIEW_VERBS: Record<string, string> = {
  approve: "approved",
  request_changes: "requested changes on",
  comment: "reviewed",
};

const str = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
const shortSha = (value: unknown) => str(value)?.slice(0, 7) ?? null;
const branchOf = (ref: unknown) => str(ref)?.replace(/^refs\/(heads|tags)\//, "") ?? null;

/** The verb phrase of each kind, said of the actor; null for a kind that reads better without one. */
function predicate(kind: string, data: Record<string, unknown>): string | null {
  switch (kind) {
    case "change.created":
      return "opened";
    case "change.merged":
      return "merged";
    case "change.rejected":
      return "rejected";
    case "change.reverted":
      return "reverted";
    case "change.commented":
    case "issue.commented":
      return "commented on";
    case "change.reviewed":
      return REVIEW_VERBS[str(data.verdict) ?? ""] ?? "reviewed";
    case "change.queued":
      return "queued for merge";
    case "change.dequeued":
      return "took out of the merge queue";
    case "issue.opened":
      return "opened";
    case "issue.closed":
      return "closed";
    case "issue.reopened":
      return "reopened";
    case "issue.labeled":
      return "changed the labels of";
    case "issue.assigned":
      return "changed the assignee of";
    case "issue.linked":
      return "linked a change to";
    default:
      return null;
  }
}

/** The words of the kinds that are about the project rather than one change or issue. */
function projectWords(kind: string, data: Record<string, unknown>): string {
  switch (kind) {
    case "project.created":
      return "created the project";
    case "project.imported":
      return "imported the project";
    case "workspace.created":
      return `created workspace ${str(data.workspace) ?? ""}`.trim();
    case "push": {
      const to = branchOf(data.ref);
      const at = shortSha(data.after);
      return `pushed to ${to ?? "a branch"}${at ? ` (now ${at})` : ""}${str(data.workspace) ? ` from workspace ${str(data.workspace)}` : ""}`;
    }
    case "sync.completed":
      return "synced the project from its source";
    case "import.failed":
      return "saw the project's import fail";
    case "tag.created":
      return `created tag ${str(data.tag) ?? ""}`.trim();
    case "tag.deleted":
      return `deleted tag ${str(data.tag) ?? ""}`.trim();
    case "deployment.requested":
      return `requested deployment ${str(data.name) ?? ""} of ${shortSha(data.commit) ?? "a commit"}`.replace(
        "  ",
        " ",
      );
    case "deployment.succeeded":
      return `saw deployment ${str(data.name) ?? ""} succeed`.replace("  ", " ");
    case "deployment.failed":
      return `saw deployment ${str(data.name) ?? ""} fail`.replace("  ", " ");
    default:
      return `did ${kind}`;
  }
}

/**
 * An event as a sentence a person reads ("alice's agent fixer opened change !12 'Add retries'"),
 * in parts so a page can link the actor and the subject and a text (a notification, a log) can
 * name them plainly. `subject` is what the event is about, looked up by `eventSubjects`.
 */
export function eventSentence(
  event: { kind: string; actor: string; data: Record<string, unknown> },
  subject: EventSubject | null,
): SentencePart[] {
  const actor = { actor: event.actor };
  if (event.kind === "change.evaluated" && subject) {
    const verdict = str(event.data.verdict);
    return [{ text: "The evaluation of " }, { subject }, { text: verdict ? ` ${verdict}` : " finished" }];
  }
  const verb = predicate(event.kind, event.data);
  if (verb && subject) {
    if (event.kind === "change.queued" || event.kind === "change.dequeued") {
      const [head, ...rest] = verb.split(" ");
      return [actor, { text: ` ${head} ` }, { subject }, { text: ` ${rest.join(" ")}` }];
    }
    return [actor, { text: ` ${verb} ` }, { subject }];
  }
  return [actor, { text: ` ${projectWords(event.kind, event.data)}` }];
}

/** How a subject reads in text: "change !12 'Add retries'", "issue #3 'Flaky'" (GitLab's marks: two indexes). */
export function subjectText(subject: EventSubject): string {
  const number = subject.number === null ? "" : ` ${subject.kind === "change" ? "!" : "#"}${subject.number}`;
  const title = subject.title ? ` '${subject.title}'` : "";
  return `${subject.kind}${number}${title}` || subject.kind;
}

/** The sentence as plain text, with each actor named by `nameOf` ("alice", "alice's agent fixer"). */
export function sentenceText(parts: SentencePart[], nameOf: (actor: string) => string): string {
  return parts
    .map((part) => ("text" in part ? part.text : "actor" in part ? nameOf(part.actor) : subjectText(part.subject)))
    .join("");
}
