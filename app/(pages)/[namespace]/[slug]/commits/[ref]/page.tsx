import { CommitLog } from "../../../../_components/commit-log";
import { loadProject, type ProjectRouteParams } from "../../../../_lib/project";
import { projectTitle, segment } from "../../../../_lib/title";

export const generateMetadata = projectTitle<ProjectRouteParams & { ref: string }>(
  (r) => `Commits on ${segment(r.ref)}`,
);

export default async function BranchCommitsPage({ params }: { params: Promise<ProjectRouteParams & { ref: string }> }) {
  const route = await params;
  return <CommitLog loaded={await loadProject(route)} gitRef={decodeURIComponent(route.ref)} />;
}
