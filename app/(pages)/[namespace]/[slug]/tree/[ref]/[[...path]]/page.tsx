import { TreeView } from "../../../../../_components/tree-view";
import { loadProject, type ProjectRouteParams } from "../../../../../_lib/project";
import { pageNumber } from "../../../../../_lib/tree";
import { projectTitle, segment } from "../../../../../_lib/title";

export const generateMetadata = projectTitle<ProjectRouteParams & { ref: string; path?: string[] }>(
  (r) => `${(r.path ?? []).map(segment).join("/") || "Files"} at ${segment(r.ref)}`,
);

type Props = {
  params: Promise<ProjectRouteParams & { ref: string; path?: string[] }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function TreePage({ params, searchParams }: Props) {
  const route = await params;
  const query = await searchParams;
  const loaded = await loadProject(route);
  const dir = (route.path ?? []).map(decodeURIComponent).join("/");
  return <TreeView loaded={loaded} gitRef={decodeURIComponent(route.ref)} dir={dir} page={pageNumber(query.page)} />;
}
