import Link from "next/link";
import { notFound } from "next/navigation";
import { DeploymentTable } from "../../../../_components/deployment-table";
import { Flash } from "../../../../_components/flash";
import { ProjectHeader } from "../../../../_components/project-header";
import { Person } from "../../../../_components/person";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../../_lib/project";
import { read } from "../../../../_lib/session";
import { RelativeTime } from "../../../../_components/relative-time";
import { projectTitle, segment } from "../../../../_lib/title";

export const generateMetadata = projectTitle<ProjectRouteParams & { id: string }>(
  (r) => `Deployment ${segment(r.id).slice(0, 8)}`,
);

type Props = {
  params: Promise<ProjectRouteParams & { id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/** One deployment: where the API's approve and retry routes send a form caller, with its refusal if any. */
export default async function DeploymentPage({ params, searchParams }: Props) {
  const route = await params;
  const query = await searchParams;
  const loaded = await loadProject(route);
  const { api, base, project, identity } = loaded;
  const { deployment } = await read(() => api.deployments.get({ id: decodeURIComponent(route.id) }));
  if (deployment.project.id !== project.id) notFound();
  const canWrite = atLeast(loaded.level, "write");
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="deployments"
        canWrite={canWrite}
      />
      <h1>
        Deployment {deployment.name}, attempt {deployment.attempt}
      </h1>
      <p>
        <Link href={`${base}/deployments`}>All deployments</Link>
      </p>
      <Flash query={query} />
      <DeploymentTable
        deployments={[deployment]}
        base={base}
        canWrite={canWrite}
        canApprove={canWrite && identity.kind === "user"}
        label="Deployment"
      />
      <dl>
        <dt>Requested by</dt>
        <dd>
          <Person actor={deployment.requestedBy} />
        </dd>
        {deployment.approvedBy && (
          <>
            <dt>Approved by</dt>
            <dd>
              <Person actor={deployment.approvedBy} /> <RelativeTime iso={deployment.approvedAt} fallback="—" />
            </dd>
          </>
        )}
        <dt>Started</dt>
        <dd>
          <RelativeTime iso={deployment.startedAt} fallback="—" />
        </dd>
        <dt>Commit</dt>
        <dd>
          <code>{deployment.commit}</code>
        </dd>
      </dl>
    </>
  );
}
