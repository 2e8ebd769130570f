import { ProjectHeader } from "../../../../_components/project-header";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../../_lib/project";
import { requireUser } from "../../../../_lib/session";
import { projectTitle } from "../../../../_lib/title";

export const generateMetadata = projectTitle(() => "New issue");

/** Posts to the API's form-friendly route, which answers 302 to the new issue's page. */
export default async function NewIssuePage({ params }: { params: Promise<ProjectRouteParams> }) {
  await requireUser();
  const loaded = await loadProject(await params);
  const { base, project } = loaded;
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="issues"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>New issue</h1>
      <form method="post" action={`/api/projects/${project.path}/issues`}>
        <label htmlFor="issue-title">Title</label>
        <input id="issue-title" name="title" required maxLength={200} size={60} />
        <label htmlFor="issue-body">Description (Markdown)</label>
        <textarea id="issue-body" name="body" rows={8} maxLength={20000} />
        <p>
          <button type="submit" className="primary">
            Open issue
          </button>
        </p>
      </form>
    </>
  );
}
