import { DeploymentTable } from "../../../_components/deployment-table";
import { Pager } from "../../../_components/pager";
import { ProjectHeader } from "../../../_components/project-header";
import { StatusFilter } from "../../../_components/status-filter";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { pageNumber } from "../../../_lib/tree";
import { DEPLOYMENTS_LIMIT_DEFAULT } from "@/server/limits";
import { projectTitle } from "../../../_lib/title";

export const generateMetadata = projectTitle(() => "Deployments");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const STATUSES = ["pending_approval", "queued", "running", "succeeded", "failed", "superseded", "skipped"] as const;

export default async function DeploymentsPage({ params, searchParams }: Props) {
  const query = await searchParams;
  const loaded = await loadProject(await params);
  const { api, namespace, slug, base, project, identity } = loaded;
  const status = STATUSES.find((s) => s === query.status);
  const page = pageNumber(query.page);
  const { deployments, total } = await api.deployments.list({
    namespace,
    slug,
    status,
    limit: DEPLOYMENTS_LIMIT_DEFAULT,
    offset: (page - 1) * DEPLOYMENTS_LIMIT_DEFAULT,
  });
  const canWrite = atLeast(loaded.level, "write");
  const pages = Math.max(1, Math.ceil(total / DEPLOYMENTS_LIMIT_DEFAULT));
  const href = (n: number) =>
    `${base}/deployments?${new URLSearchParams({ ...(status ? { status } : {}), page: String(n) })}`;
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="deployments"
        canWrite={canWrite}
      />
      <h1>Deployments</h1>
      <StatusFilter action={`${base}/deployments`} statuses={STATUSES} selected={status} />
      {deployments.length === 0 ? (
        <p>
          No deployments{status ? ` with status ${status.replace("_", " ")}` : ""}. The project policy&apos;s{" "}
          <code>deploys:</code> block says what deploys when a branch moves.
        </p>
      ) : (
        <DeploymentTable
          deployments={deployments}
          base={base}
          canWrite={canWrite}
          canApprove={canWrite && identity.kind === "user"}
          label="Deployments"
        />
      )}
      <Pager page={page} pages={pages} label="Deployment pages" href={href} />
    </>
  );
}
