import { CommitLog } from "../../../_components/commit-log";
import { loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { projectTitle } from "../../../_lib/title";

export const generateMetadata = projectTitle(() => "Commits");

export default async function CommitsPage({ params }: { params: Promise<ProjectRouteParams> }) {
  return <CommitLog loaded={await loadProject(await params)} />;
}
