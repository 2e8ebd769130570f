import { read } from "../_lib/session";
import type { loadProject } from "../_lib/project";
import { atLeast } from "../_lib/project";
import { ProjectHeader } from "./project-header";
import { CommitLink } from "./commit-link";
import { TableHead } from "./table-head";
import { RelativeTime } from "./relative-time";

type Loaded = Awaited<ReturnType<typeof loadProject>>;

const LOG_DEPTH = 100;

/** The newest LOG_DEPTH commits of a branch. */
export async function CommitLog({ loaded, gitRef }: { loaded: Loaded; gitRef?: string }) {
  const { api, namespace, slug, base, project } = loaded;
  const branch = gitRef ?? project.defaultBranch;
  const { log } = await read(() => api.repository.log({ namespace, slug, ref: branch, depth: LOG_DEPTH }));
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="commits" canWrite={atLeast(loaded.level, "write")} />
      <h1>
        Commits on <code>{branch}</code>
      </h1>
      <div className="scroll"><table aria-label="Commits">
        <TableHead columns={["Commit", "Message", "Author", "Date"]} />
        <tbody>
          {log.map((commit) => (
            <tr key={commit.sha}>
              <td>
                <CommitLink base={base} sha={commit.sha} />
              </td>
              <td>{commit.message.split("\n")[0]}</td>
              <td>{commit.author.name}</td>
              <td>
                <RelativeTime iso={commit.author.date} />
              </td>
            </tr>
          ))}
        </tbody>
      </table></div>
      {log.length === LOG_DEPTH && <p className="muted">The newest {LOG_DEPTH} commits are shown.</p>}
    </>
  );
}
