import Link from "next/link";
import { Pager } from "../../../_components/pager";
import { ProjectHeader } from "../../../_components/project-header";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { read } from "../../../_lib/session";
import { pageNumber } from "../../../_lib/tree";
import { TableHead } from "../../../_components/table-head";
import { projectTitle } from "../../../_lib/title";

export const generateMetadata = projectTitle(() => "Issues");

type Props = { params: Promise<ProjectRouteParams>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const PAGE_SIZE = 50;
const text = (value: string | string[] | undefined) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

export default async function IssuesPage({ params, searchParams }: Props) {
  const query = await searchParams;
  const loaded = await loadProject(await params);
  const { api, namespace, slug, base, project, identity } = loaded;
  const status = query.status === "open" || query.status === "closed" ? query.status : undefined;
  const label = text(query.label);
  const q = text(query.q);
  const page = pageNumber(query.page);
  // One more than a page tells whether a next page exists.
  const { issues } = await read(() => api.issues.list({ namespace, slug, status, label, q, limit: PAGE_SIZE + 1, offset: (page - 1) * PAGE_SIZE }));
  const filters = new URLSearchParams({ ...(status ? { status } : {}), ...(label ? { label } : {}), ...(q ? { q } : {}) });
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="issues" canWrite={atLeast(loaded.level, "write")} />
      <h1>Issues</h1>
      {identity.kind !== "anonymous" && (
        <p>
          <Link href={`${base}/issues/new`}>New issue</Link>
        </p>
      )}
      <form method="get" action={`${base}/issues`} role="search" aria-label="Filter issues">
        <div className="row">
          <div>
            <label htmlFor="issue-status">Status</label>
            <select id="issue-status" name="status" defaultValue={status ?? ""}>
              <option value="">any</option>
              <option value="open">open</option>
              <option value="closed">closed</option>
            </select>
          </div>
          <div>
            <label htmlFor="issue-label">Label</label>
            <input id="issue-label" name="label" defaultValue={label} />
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
        <table aria-label="Issues">
          <TableHead columns={["#", "Title", "Status", "Labels"]} />
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
                <td>{issue.labels.join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={page} pages={issues.length > PAGE_SIZE ? page + 1 : page} label="Issue pages" href={(n) => `${base}/issues?${filters}${filters.size ? "&" : ""}page=${n}`} />
    </>
  );
}
