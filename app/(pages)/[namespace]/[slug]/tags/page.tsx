import { CommitLink } from "../../../_components/commit-link";
import { Pager } from "../../../_components/pager";
import { ProjectHeader } from "../../../_components/project-header";
import { RelativeTime } from "../../../_components/relative-time";
import { TableHead } from "../../../_components/table-head";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { read } from "../../../_lib/session";
import { projectTitle } from "../../../_lib/title";
import { pageNumber } from "../../../_lib/tree";

export const generateMetadata = projectTitle(() => "Tags");

const PAGE = 50;

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/** The tags, newest first. */
export default async function TagsPage({ params, searchParams }: Props) {
  const query = await searchParams;
  const loaded = await loadProject(await params);
  const { api, namespace, slug, base, project } = loaded;
  const page = pageNumber(query.page);
  const { tags } = await read(() => api.code.tags({ namespace, slug, limit: PAGE + 1, offset: (page - 1) * PAGE }));
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="code"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>Tags</h1>
      {tags.length === 0 ? (
        <p>No tags.</p>
      ) : (
        <div className="scroll">
          <table aria-label="Tags">
            <TableHead columns={["Tag", "Commit", "Message", "Tagged"]} />
            <tbody>
              {tags.slice(0, PAGE).map((tag) => (
                <tr key={tag.name}>
                  <td>
                    <code>{tag.name}</code>
                  </td>
                  <td>
                    <CommitLink base={base} sha={tag.commit} />
                  </td>
                  <td>{tag.message?.split("\n")[0] ?? ""}</td>
                  <td>{tag.tagger ? <RelativeTime iso={tag.tagger.date} /> : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        page={page}
        pages={tags.length > PAGE ? page + 1 : page}
        label="Tag pages"
        href={(n) => `${base}/tags?page=${n}`}
      />
    </>
  );
}
