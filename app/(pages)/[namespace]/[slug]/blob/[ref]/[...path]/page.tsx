import Link from "next/link";
import { BLOB_PAGE_LINES, CONTENT_VIEW_BYTES_MAX } from "@/server/limits";
import { Breadcrumbs } from "../../../../../_components/breadcrumbs";
import { CommitLink } from "../../../../../_components/commit-link";
import { LineRange } from "../../../../../_components/line-range";
import { Markdown } from "../../../../../_components/markdown";
import { Pager } from "../../../../../_components/pager";
import { ProjectHeader } from "../../../../../_components/project-header";
import { ServerHtml } from "../../../../../_components/server-html";
import { numberedLinesHtml } from "../../../../../_lib/code-html";
import { highlightLines } from "../../../../../_lib/highlight";
import { atLeast, loadProject, projectAddress, type ProjectRouteParams } from "../../../../../_lib/project";
import { read } from "../../../../../_lib/session";
import { fileLinks, pageNumber, pathUrl } from "../../../../../_lib/tree";

type Route = ProjectRouteParams & { ref: string; path: string[] };
type Props = { params: Promise<Route>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const isMarkdown = (path: string) => /\.(md|markdown|mdown)$/i.test(path);

export async function generateMetadata({ params }: { params: Promise<Route> }) {
  const route = await params;
  const { namespace, slug } = projectAddress(route);
  return {
    title: `${route.path.map(decodeURIComponent).join("/")} at ${decodeURIComponent(route.ref)} · ${namespace}/${slug}`,
  };
}

/**
 * One file: Markdown rendered (with its source a click away), other text with line numbers
 * (`#L<n>` anchors, `#L10-L20` ranges), syntax highlighting and BLOB_PAGE_LINES per page; binary
 * and too-large files say so.
 */
export default async function BlobPage({ params, searchParams }: Props) {
  const route = await params;
  const query = await searchParams;
  const loaded = await loadProject(route);
  const { api, namespace, slug, base, project } = loaded;
  const ref = decodeURIComponent(route.ref);
  const path = route.path.map(decodeURIComponent).join("/");
  const file = await read(() => api.repository.blob({ namespace, slug, path, ref }));
  const source = file.value ?? "";
  const lines = source === "" ? [] : source.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const rendered = isMarkdown(path) && query.plain !== "1";
  const highlighted = rendered || file.kind !== "content" ? null : highlightLines(path, source);
  const pages = Math.max(1, Math.ceil(lines.length / BLOB_PAGE_LINES));
  const page = Math.min(pageNumber(query.page), pages);
  const first = (page - 1) * BLOB_PAGE_LINES;
  const dir = path.split("/").slice(0, -1).join("/");
  const self = pathUrl(base, "blob", ref, path);
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
        <Breadcrumbs base={base} slug={slug} gitRef={ref} path={path} />
      </h1>
      <p className="muted">
        At <code>{ref}</code> (<CommitLink base={base} sha={file.commit} />)
        {file.kind === "content" && <> · {lines.length} lines</>} · <a href={links.raw}>Raw</a> ·{" "}
        <Link href={links.blame}>Blame</Link> · <Link href={links.history}>History</Link>
        {isMarkdown(path) && file.kind === "content" && (
          <> · {rendered ? <Link href={`${self}?plain=1`}>Source</Link> : <Link href={self}>Rendered</Link>}</>
        )}
      </p>
      {file.kind === "binary" && <p className="notice">This is a binary file; it is not shown.</p>}
      {file.kind === "too_large" && (
        <p className="notice">
          This file is larger than {CONTENT_VIEW_BYTES_MAX / 1024 / 1024} MiB; it is not shown inline. Clone the project
          to read it.
        </p>
      )}
      {file.kind === "content" && rendered && <Markdown source={source} label={path} context={{ base, ref, dir }} />}
      {file.kind === "content" && !rendered && (
        <>
          <LineRange />
          <Pager page={page} pages={pages} label="Line pages" href={(n) => `?page=${n}`} />
          <div className="scroll code" role="group" aria-label={`Contents of ${path}`} tabIndex={0}>
            <ServerHtml
              className="lines"
              html={numberedLinesHtml(lines.slice(first, first + BLOB_PAGE_LINES), first + 1, highlighted)}
            />
          </div>
          <Pager page={page} pages={pages} label="Line pages, bottom" href={(n) => `?page=${n}`} />
        </>
      )}
    </>
  );
}
