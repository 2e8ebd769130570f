import { CommitLog } from "../../../_components/commit-log";
import { loadProject, type ProjectRouteParams } from "../../../_lib/project";

export default async function CommitsPage({ params }: { params: Promise<ProjectRouteParams> }) {
  return <CommitLog loaded={await loadProject(await params)} />;
}
