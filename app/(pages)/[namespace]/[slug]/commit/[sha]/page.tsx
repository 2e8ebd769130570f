import { Person } from "../../../../_components/person";
import { CommitAuthor } from "../../../../_components/commit-author";
import Link from "next/link";
import { CommitLink } from "../../../../_components/commit-link";
import { ProjectHeader } from "../../../../_components/project-header";
import { ReadDiff } from "../../../../_components/read-diff";
import { RelativeTime } from "../../../../_components/relative-time";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../../_lib/project";
import { read } from "../../../../_lib/session";
import { projectTitle, segment } from "../../../../_lib/title";

type Route = ProjectRouteParams & { sha: string };

export const generateMetadata = projectTitle<Route>((r) => `Commit ${segment(r.sha).slice(0, 12)}`);

/** One commit: its message, author, parents and its diff against its first parent. */
export default async function CommitPage({ params }: { params: Promise<Route> }) {
  const route = await params;
  const loaded = await loadProject(route);
  const { api, namespace, slug, base, project } = loaded;
  const { commit, totals, files } = await read(() => api.code.commit({ namespace, slug, sha: segment(route.sha) }));
  const [subject, ...body] = commit.message.trimEnd().split("\n");
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="commits"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>{subject}</h1>
      {body.join("\n").trim() && <pre className="message">{body.join("\n").trim()}</pre>}
      <p>
        <code>{commit.sha}</code>
      </p>
      <p>
        <CommitAuthor author={commit.author} /> committed <RelativeTime iso={commit.author.date} />
        {commit.parents.length > 0 && (
          <>
            {" "}
            · parent{commit.parents.length === 1 ? "" : "s"}{" "}
            {commit.parents.map((parent, i) => (
              <span key={parent}>
                {i > 0 && " "}
                <CommitLink base={base} sha={parent} />
              </span>
            ))}
          </>
        )}
        {commit.provenance?.changeId && (
          <>
            {" "}
            · from{" "}
            <Link href={`${base}/changes/${commit.provenance.changeId}`}>
              change {commit.provenance.changeId.slice(0, 8)}
            </Link>
          </>
        )}
        {commit.provenance?.agentId && (
          <>
            {" "}
            · written by <Person actor={`agent:${commit.provenance.agentId}`} />
            {commit.provenance.model && <> ({commit.provenance.model})</>}
          </>
        )}
      </p>
      <ReadDiff totals={totals} files={files} />
    </>
  );
}
