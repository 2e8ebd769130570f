import { AuthorOf, agentActors } from "../../../_components/person";
import { preloadNames } from "../../../_lib/people";
import Link from "next/link";
import { ProjectHeader } from "../../../_components/project-header";
import { StatusFilter } from "../../../_components/status-filter";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { TableHead } from "../../../_components/table-head";
import { RelativeTime } from "../../../_components/relative-time";
import { projectTitle } from "../../../_lib/title";

export const generateMetadata = projectTitle(() => "Changes");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const STATUSES = ["open", "needs_changes", "accepted", "approved", "promoted", "merged", "rejected"] as const;
type Status = (typeof STATUSES)[number];

export default async function ChangesPage({ params, searchParams }: Props) {
  const query = await searchParams;
  const loaded = await loadProject(await params);
  const { api, namespace, slug, base, project } = loaded;
  const status = STATUSES.find<Status>((s): s is Status => s === query.status);
  const { changes } = await api.changes.list({ namespace, slug, status, limit: 100 });
  await preloadNames(agentActors(changes));
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="changes"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>Changes</h1>
      <StatusFilter action={`${base}/changes`} statuses={STATUSES} selected={status} />
      {changes.length === 0 ? (
        <p>No changes{status ? ` with status ${status.replace("_", " ")}` : ""}.</p>
      ) : (
        <div className="scroll">
          <table aria-label="Changes">
            <TableHead columns={["Change", "Status", "Author", "Opened"]} />
            <tbody>
              {changes.map((change) => (
                <tr key={change.id}>
                  <td>
                    <Link href={`${base}/changes/${change.id}`}>
                      {change.title ?? change.workspace ?? change.id.slice(0, 8)}
                    </Link>{" "}
                    <span className="muted">!{change.number}</span>
                  </td>
                  <td>
                    <span className="badge">{change.status.replace("_", " ")}</span>
                  </td>
                  <td>
                    <AuthorOf author={change.author} agentId={change.agentId} />
                  </td>
                  <td>
                    <RelativeTime iso={change.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
