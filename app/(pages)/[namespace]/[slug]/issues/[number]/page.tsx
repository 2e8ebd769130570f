import { notFound } from "next/navigation";
import Link from "next/link";
import { Flash } from "../../../../_components/flash";
import { ProjectFields } from "../../../../_components/hidden-fields";
import { Markdown } from "../../../../_components/markdown";
import { ProjectHeader } from "../../../../_components/project-header";
import { Person } from "../../../../_components/person";
import { preloadNames } from "../../../../_lib/people";
import { IssueTimeline } from "./timeline";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../../_lib/project";
import { read } from "../../../../_lib/session";
import { commentOnIssue, setIssueAssignee, setIssueLabels } from "./actions";
import { LabelChip } from "../../../../_components/label-chip";
import { RelativeTime } from "../../../../_components/relative-time";
import { projectTitle, segment } from "../../../../_lib/title";

export const generateMetadata = projectTitle<ProjectRouteParams & { number: string }>(
  (r) => `Issue #${segment(r.number)}`,
);

type Props = {
  params: Promise<ProjectRouteParams & { number: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function IssuePage({ params, searchParams }: Props) {
  const route = await params;
  const query = await searchParams;
  const number = Number(route.number);
  if (!Number.isInteger(number) || number < 1) notFound();
  const loaded = await loadProject(route);
  const { api, namespace, slug, base, project, identity } = loaded;
  const [{ issue }, { comments }, { entries }] = await read(() =>
    Promise.all([
      api.issues.get({ namespace, slug, number }),
      api.issues.listComments({ namespace, slug, number, limit: 100 }),
      api.issues.timeline({ namespace, slug, number }),
    ]),
  );
  const assignee = issue.assignee ? `user:${issue.assignee}` : null;
  const canWrite = identity.kind === "user" && atLeast(loaded.level, "write");
  // The pickers' choices: the project's labels and the people who can write to it.
  const [{ labels: known }, { users: assignable }] = canWrite
    ? await Promise.all([api.issues.labels({ namespace, slug }), api.projectAccess.assignees({ namespace, slug })])
    : [{ labels: [] }, { users: [] }];
  const labelChoices = [...new Set([...known, ...issue.labels])].sort();
  const current = assignable.find((user) => user.id === issue.assignee);
  await preloadNames([
    issue.author,
    assignee,
    ...comments.map((comment) => comment.author),
    ...entries.flatMap((entry) => [entry.actor, entry.assignee ? `user:${entry.assignee}` : null]),
  ]);
  const self = `${base}/issues/${number}`;
  const ref = (
    <>
      <ProjectFields namespace={namespace} slug={slug} back={self} />
      <input type="hidden" name="number" value={number} />
    </>
  );
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="issues"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>
        {issue.title} <span className="muted">#{issue.number}</span>
      </h1>
      <p>
        <span className="badge">{issue.status}</span> opened by <Person actor={issue.author} />{" "}
        <RelativeTime iso={issue.createdAt} />
        {issue.labels.length > 0 && (
          <>
            {" "}
            ·{" "}
            {issue.labels.map((name) => (
              <LabelChip key={name} name={name} href={`${base}/issues?${new URLSearchParams({ label: name })}`} />
            ))}
          </>
        )}{" "}
        ·{" "}
        {assignee ? (
          <>
            assigned to <Person actor={assignee} />
          </>
        ) : (
          "no one assigned"
        )}
        {issue.linkedChangeId && (
          <>
            {" "}
            · <Link href={`${base}/changes/${issue.linkedChangeId}`}>linked change</Link>
          </>
        )}
      </p>
      <Flash query={query} />
      {issue.body ? (
        <Markdown source={issue.body} label="Description" context={{ base }} />
      ) : (
        <p className="muted">No description.</p>
      )}
      <section aria-labelledby="comments">
        <h2 id="comments">Timeline</h2>
        <IssueTimeline entries={entries} comments={comments} base={base} />
        {identity.kind !== "anonymous" ? (
          <form action={commentOnIssue}>
            {ref}
            <label htmlFor="issue-comment">Comment (Markdown)</label>
            <textarea id="issue-comment" name="body" required />
            <button type="submit" className="primary">
              Comment
            </button>
          </form>
        ) : (
          <p>
            <Link href="/login">Sign in</Link> to comment.
          </p>
        )}
      </section>
      {canWrite && (
        <section aria-labelledby="manage">
          <h2 id="manage">Manage</h2>
          <div className="row">
            <form method="post" action={`/api/projects/${project.path}/issues/${number}/close`}>
              <button type="submit">{issue.status === "open" ? "Close issue" : "Reopen issue"}</button>
            </form>
            {identity.kind === "user" && (
              <form action={setIssueAssignee}>
                {ref}
                <input
                  type="hidden"
                  name="assignee"
                  value={issue.assignee === identity.userId ? "" : identity.username}
                />
                <button type="submit">{issue.assignee === identity.userId ? "Unassign me" : "Assign to me"}</button>
              </form>
            )}
            <form action={setIssueAssignee}>
              {ref}
              <label htmlFor="issue-assignee">Assignee</label>
              <select id="issue-assignee" name="assignee" defaultValue={current?.username ?? ""}>
                <option value="">No one</option>
                {assignable.map((user) => (
                  <option key={user.id} value={user.username}>
                    {user.username}
                  </option>
                ))}
              </select>{" "}
              <button type="submit">Set assignee</button>
            </form>
            <form action={setIssueLabels}>
              {ref}
              <fieldset>
                <legend>Labels</legend>
                {labelChoices.map((name, index) => (
                  <label key={name} className="check">
                    <input
                      type="checkbox"
                      name="label"
                      value={name}
                      defaultChecked={issue.labels.includes(name)}
                      id={`issue-label-${index}`}
                    />{" "}
                    {name}{" "}
                  </label>
                ))}
                <label htmlFor="issue-labels">New labels (comma-separated)</label>
                <input id="issue-labels" name="labels" /> <button type="submit">Save labels</button>
              </fieldset>
            </form>
          </div>
        </section>
      )}
    </>
  );
}
