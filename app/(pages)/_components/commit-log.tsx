import { read } from "../_lib/session";
import type { loadProject } from "../_lib/project";
import { atLeast } from "../_lib/project";
import { ProjectHeader } from "./project-header";
import { CommitTable } from "./commit-table";

type Loaded = Awaited<ReturnType<typeof loadProject>>;

const LOG_DEPTH = 100;

/** The newest LOG_DEPTH commits of a branch or from a commit id (a permalink's History). */
export async function CommitLog({ loaded, gitRef }: { loaded: Loaded; gitRef?: string }) {
  const { api, namespace, slug, base, project } = loaded;
  const branch = gitRef ?? project.defaultBranch;
  const { log } = await read(() => api.repository.history({ namespace, slug, ref: branch, depth: LOG_DEPTH }));
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="commits"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>
        Commits on <code>{branch}</code>
      </h1>
      <CommitTable base={base} commits={log} />
      {log.length === LOG_DEPTH && <p className="muted">The newest {LOG_DEPTH} commits are shown.</p>}
    </>
  );
}
