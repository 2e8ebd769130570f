import { TreeView } from "../../_components/tree-view";
import { loadProject, type ProjectRouteParams } from "../../_lib/project";
import { pageNumber } from "../../_lib/tree";
import { projectTitle } from "../../_lib/title";

export const generateMetadata = projectTitle();

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function ProjectPage({ params, searchParams }: Props) {
  const query = await searchParams;
  const loaded = await loadProject(await params);
  return (
    <TreeView
      loaded={loaded}
      gitRef={typeof query.ref === "string" && query.ref !== "" ? query.ref : undefined}
      dir=""
      page={pageNumber(query.page)}
    />
  );
}
