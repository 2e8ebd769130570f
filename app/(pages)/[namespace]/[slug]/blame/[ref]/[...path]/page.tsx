import Link from "next/link";
import { CommitAuthor } from "../../../../../_components/commit-author";
import { Breadcrumbs } from "../../../../../_components/breadcrumbs";
import { NumberedLine } from "../../../../../_components/code-lines";
import { CommitLink } from "../../../../../_components/commit-link";
import { ProjectHeader } from "../../../../../_components/project-header";
import { RelativeTime } from "../../../../../_components/relative-time";
import { highlightLines } from "../../../../../_lib/highlight";
import { atLeast, loadProject, projectAddress, type ProjectRouteParams } from "../../../../../_lib/project";
import { read } from "../../../../../_lib/session";
import { fileLinks } from "../../../../../_lib/tree";

type Route = ProjectRouteParams & { ref: string; path: string[] };

export async function generateMetadata({ params }: { params: Promise<Route> }) {
  const route = await params;
  const { namespace, slug } = projectAddress(route);
  return {
    title: `Blame ${route.path.map(decodeURIComponent).join("/")} at ${decodeURIComponent(route.ref)} · ${namespace}/${slug}`,
  };
}

/** Which commit last changed each line of a file: the commit beside the first line of each range. */
export default async function BlamePage({ params }: { params: Promise<Route> }) {
  const route = await params;
  const loaded = await loadProject(route);
  const { api, namespace, slug, base, project } = loaded;
  const ref = decodeURIComponent(route.ref);
  const path = route.path.map(decodeURIComponent).join("/");
  const [blame, file] = await Promise.all([
    read(() => api.code.blame({ namespace, slug, path, ref })),
    read(() => api.repository.blob({ namespace, slug, path, ref })),
  ]);
  const source = file.kind === "content" ? (file.value ?? "") : "";
  const lines = source === "" ? [] : source.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const highlighted = highlightLines(path, source);
  const links = fileLinks(base, ref, path);
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="code"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1 className="path">
        Blame: <Breadcrumbs base={base} slug={slug} gitRef={ref} path={path} />
      </h1>
      <p className="muted">
        At <code>{ref}</code> (<CommitLink base={base} sha={blame.commit} />) · <Link href={links.blob}>File</Link> ·{" "}
        <a href={links.raw}>Raw</a> · <Link href={links.history}>History</Link>
      </p>
      {file.kind !== "content" ? (
        <p className="notice">This file is not shown as text.</p>
      ) : (
        <div className="scroll">
          <table className="code blame" aria-label={`Blame of ${path}`}>
            <tbody>
              {blame.ranges.flatMap((range) =>
                lines.slice(range.startLine - 1, range.endLine).map((line, index) => {
                  const n = range.startLine + index;
                  return (
                    <NumberedLine key={n} n={n} text={line} segments={highlighted?.[n - 1]}>
                      <td className="blame-commit">
                        {index === 0 && (
                          <>
                            <CommitLink base={base} sha={range.commit.sha} /> {range.commit.message.split("\n")[0]}{" "}
                            <span className="muted">
                              <CommitAuthor author={range.commit.author} />,{" "}
                              <RelativeTime iso={range.commit.author.date} />
                            </span>
                          </>
                        )}
                      </td>
                    </NumberedLine>
                  );
                }),
              )}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
