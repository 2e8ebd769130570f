import Link from "next/link";
import { Pager } from "../../../_components/pager";
import { ProjectHeader } from "../../../_components/project-header";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { read } from "../../../_lib/session";
import { pageNumber } from "../../../_lib/tree";
import { TableHead } from "../../../_components/table-head";
import { LabelChip } from "../../../_components/label-chip";
import { RelativeTime } from "../../../_components/relative-time";
import { projectTitle } from "../../../_lib/title";
import { Person } from "../../../_components/person";
import { preloadNames } from "../../../_lib/people";

export const generateMetadata = projectTitle(() => "Issues");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const PAGE_SIZE = 50;
/** The open and closed counts are exact up to this many (the list's own maximum). */
const COUNT_MAX = 500;
const commentCount = (n: number) => `${n} comment${n === 1 ? "" : "s"}`;
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/;
const text = (value: string | string[] | undefined) =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

export default async function IssuesPage({ params, searchParams }: Props) {
  const query = await searchParams;
  const loaded = await loadProject(await params);
  const { api, namespace, slug, base, project, identity } = loaded;
  // Open issues unless the address asks for closed ones or all of them.
  const status = query.status === "closed" ? "closed" : query.status === "all" ? undefined : "open";
  const label = text(query.label);
  const q = text(query.q);
  const author = text(query.author)?.replace(/^@/, "");
  const assigneeName = text(query.assignee)?.replace(/^@/, "");
  const page = pageNumber(query.page);
  // The filters' choices: the project's labels and the people issues can be assigned to (by name in the address).
  const [{ labels }, { users }] = await read(() =>
    Promise.all([api.issues.labels({ namespace, slug }), api.projectAccess.assignees({ namespace, slug })]),
  );
  const assignee = assigneeName ? users.find((user) => user.username === assigneeName) : undefined;
  const filter = { namespace, slug, label, q, author: USERNAME.test(author ?? "") ? author : undefined };
  // An assignee no one can be (unknown name) matches nothing. One more than a page tells whether a next page exists.
  const none = { issues: [] };
  const [{ issues }, open, closed] =
    assigneeName && !assignee
      ? [none, none, none]
      : await read(() =>
          Promise.all([
            api.issues.list({
              ...filter,
              assignee: assignee?.id,
              status,
              limit: PAGE_SIZE + 1,
              offset: (page - 1) * PAGE_SIZE,
            }),
            api.issues.list({ ...filter, assignee: assignee?.id, status: "open", limit: COUNT_MAX }),
            api.issues.list({ ...filter, assignee: assignee?.id, status: "closed", limit: COUNT_MAX }),
          ]),
        );
  await preloadNames(issues.flatMap((issue) => [issue.author, issue.assignee ? `user:${issue.assignee}` : null]));
  const filters = new URLSearchParams({
    status: status ?? "all",
    ...(label ? { label } : {}),
    ...(assigneeName ? { assignee: assigneeName } : {}),
    ...(author ? { author } : {}),
    ...(q ? { q } : {}),
  });
  const listUrl = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(filters);
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) next.delete(key);
      else next.set(key, value);
    }
    return `${base}/issues?${next}`;
  };
  const count = (list: { issues: unknown[] }) =>
    list.issues.length === COUNT_MAX ? `${COUNT_MAX}+` : String(list.issues.length);
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="issues"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>Issues</h1>
      {identity.kind !== "anonymous" && (
        <p>
          <Link href={`${base}/issues/new`}>New issue</Link>
        </p>
      )}
      <nav aria-label="Issue status" className="counts">
        <ul className="plain row">
          <li>
            <Link
              href={listUrl({ status: "open", page: undefined })}
              aria-current={status === "open" ? "page" : undefined}
            >
              {count(open)} open
            </Link>
          </li>
          <li>
            <Link
              href={listUrl({ status: "closed", page: undefined })}
              aria-current={status === "closed" ? "page" : undefined}
            >
              {count(closed)} closed
            </Link>
          </li>
          <li>
            <Link
              href={listUrl({ status: "all", page: undefined })}
              aria-current={status === undefined ? "page" : undefined}
            >
              all
            </Link>
          </li>
          {label && (
            <li>
              Label <LabelChip name={label} href={listUrl({ label })} /> ·{" "}
              <Link href={listUrl({ label: undefined })}>clear</Link>
            </li>
          )}
        </ul>
      </nav>
      <form method="get" action={`${base}/issues`} role="search" aria-label="Filter issues">
        <div className="row">
          <div>
            <label htmlFor="issue-status">Status</label>
            <select id="issue-status" name="status" defaultValue={status ?? "all"}>
              <option value="all">any</option>
              <option value="open">open</option>
              <option value="closed">closed</option>
            </select>
          </div>
          <div>
            <label htmlFor="issue-label">Label</label>
            <select id="issue-label" name="label" defaultValue={label ?? ""}>
              <option value="">any</option>
              {[...new Set([...labels, ...(label ? [label] : [])])].map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="issue-assignee">Assignee</label>
            <select id="issue-assignee" name="assignee" defaultValue={assigneeName ?? ""}>
              <option value="">anyone</option>
              {users.map((user) => (
                <option key={user.id} value={user.username}>
                  {user.username}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="issue-author">Author</label>
            <input id="issue-author" name="author" defaultValue={author} size={12} />
          </div>
          <div>
            <label htmlFor="issue-q">Search</label>
            <input id="issue-q" type="search" name="q" defaultValue={q} />
          </div>
          <div>
            <button type="submit">Filter</button>
          </div>
        </div>
      </form>
      {issues.length === 0 ? (
        <p>No issues match.</p>
      ) : (
        <div className="scroll">
          <table aria-label="Issues">
            <TableHead columns={["#", "Title", "Status", "Labels", "Author", "Assignee", "Comments", "Opened"]} />
            <tbody>
              {issues.slice(0, PAGE_SIZE).map((issue) => (
                <tr key={issue.id}>
                  <td>{issue.number}</td>
                  <td>
                    <Link href={`${base}/issues/${issue.number}`}>{issue.title}</Link>
                  </td>
                  <td>
                    <span className="badge">{issue.status}</span>
                  </td>
                  <td>
                    {issue.labels.map((name) => (
                      <LabelChip key={name} name={name} href={listUrl({ label: name, page: undefined })} />
                    ))}
                  </td>
                  <td>
                    <Person actor={issue.author} />
                  </td>
                  <td>
                    {issue.assignee ? <Person actor={`user:${issue.assignee}`} /> : <span className="muted">none</span>}
                  </td>
                  <td>
                    <span aria-label={commentCount(issue.comments ?? 0)}>{issue.comments ?? 0}</span>
                  </td>
                  <td>
                    <RelativeTime iso={issue.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        page={page}
        pages={issues.length > PAGE_SIZE ? page + 1 : page}
        label="Issue pages"
        href={(n) => listUrl({ page: String(n) })}
      />
    </>
  );
}
