import Link from "next/link";
import { BLOB_PAGE_LINES, CONTENT_VIEW_BYTES_MAX } from "@/server/limits";
import { Pager } from "../../../../../_components/pager";
import { ProjectHeader } from "../../../../../_components/project-header";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../../../_lib/project";
import { read } from "../../../../../_lib/session";
import { pageNumber, pathUrl } from "../../../../../_lib/tree";

type Props = { params: Promise<ProjectRouteParams & { ref: string; path: string[] }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** One file with numbered lines (`#L<n>` anchors), BLOB_PAGE_LINES per page; binary and too-large files say so. */
export default async function BlobPage({ params, searchParams }: Props) {
  const route = await params;
  const query = await searchParams;
  const loaded = await loadProject(route);
  const { api, namespace, slug, base, project } = loaded;
  const ref = decodeURIComponent(route.ref);
  const path = route.path.map(decodeURIComponent).join("/");
  const file = await read(() => api.repository.content({ namespace, slug, path, ref }));
  const lines = file.value === undefined ? [] : file.value.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const pages = Math.max(1, Math.ceil(lines.length / BLOB_PAGE_LINES));
  const page = Math.min(pageNumber(query.page), pages);
  const first = (page - 1) * BLOB_PAGE_LINES;
  const parent = path.split("/").slice(0, -1).join("/");
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="code" canWrite={atLeast(loaded.level, "write")} />
      <h1>
        <code>{path}</code>
      </h1>
      <p className="muted">
        At <code>{ref}</code> (<code>{file.commit.slice(0, 12)}</code>) · <Link href={pathUrl(base, "tree", ref, parent)}>up to {parent === "" ? slug : parent}</Link>
        {file.kind === "content" && <> · {lines.length} lines</>}
      </p>
      {file.kind === "binary" && <p className="notice">This is a binary file; it is not shown.</p>}
      {file.kind === "too_large" && <p className="notice">This file is larger than {CONTENT_VIEW_BYTES_MAX / 1024 / 1024} MiB; it is not shown inline. Clone the project to read it.</p>}
      {file.kind === "content" && (
        <>
          <Pager page={page} pages={pages} label="Line pages" href={(n) => `?page=${n}`} />
          <table className="code" aria-label={`Contents of ${path}`}>
            <tbody>
              {lines.slice(first, first + BLOB_PAGE_LINES).map((line, index) => {
                const n = first + index + 1;
                return (
                  <tr key={n} id={`L${n}`}>
                    <td className="num">
                      <a href={`#L${n}`}>{n}</a>
                    </td>
                    <td>{line}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager page={page} pages={pages} label="Line pages, bottom" href={(n) => `?page=${n}`} />
        </>
      )}
    </>
  );
}
