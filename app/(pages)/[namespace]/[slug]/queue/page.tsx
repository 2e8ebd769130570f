import Link from "next/link";
import { ProjectHeader } from "../../../_components/project-header";
import { RelativeTime } from "../../../_components/relative-time";
import { TableHead } from "../../../_components/table-head";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { read } from "../../../_lib/session";
import { projectTitle } from "../../../_lib/title";

export const generateMetadata = projectTitle(() => "Merge queue");

/** The project's merge queue in landing order. */
export default async function QueuePage({ params }: { params: Promise<ProjectRouteParams> }) {
  const loaded = await loadProject(await params);
  const { api, namespace, slug, base, project } = loaded;
  const { entries, mergedLastHour } = await read(() => api.changes.projectQueue({ namespace, slug }));
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="queue"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>Merge queue</h1>
      <p className="muted">
        {mergedLastHour} change{mergedLastHour === 1 ? "" : "s"} landed in the last hour.
      </p>
      {entries.length === 0 ? (
        <p>The queue is empty.</p>
      ) : (
        <div className="scroll">
          <table aria-label="Merge queue">
            <TableHead columns={["Position", "Change", "State", "Strategy", "Queued"]} />
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.changeId}>
                  <td>{entry.position}</td>
                  <td>
                    <Link href={`${base}/changes/${entry.changeId}`}>{entry.changeId.slice(0, 8)}</Link>
                  </td>
                  <td>
                    <span className="badge">{entry.state}</span>
                  </td>
                  <td>{entry.strategy}</td>
                  <td>
                    <RelativeTime iso={entry.enqueuedAt} />
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
