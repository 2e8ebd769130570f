import { ProjectHeader } from "../../../_components/project-header";
import { SettingsNav } from "../../../_components/settings-nav";
import { atLeast, type ProjectRouteParams } from "../../../_lib/project";
import { loadSettings } from "../../../_lib/settings";
import { projectTitle } from "../../../_lib/title";

export const generateMetadata = projectTitle(() => "Settings");

export default async function SettingsPage({ params }: { params: Promise<ProjectRouteParams> }) {
  const loaded = await loadSettings(await params, "write");
  const { base, project } = loaded;
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="settings" canWrite />
      <h1>Settings</h1>
      <SettingsNav base={base} current="general" isAdmin={atLeast(loaded.level, "admin")} />
      <dl>
        <dt>Path</dt>
        <dd>{project.path}</dd>
        <dt>Visibility</dt>
        <dd>{project.visibility}</dd>
        <dt>Default branch</dt>
        <dd>{project.defaultBranch}</dd>
        <dt>Clone URL</dt>
        <dd>
          <code>{project.remote}</code>
        </dd>
      </dl>
      {atLeast(loaded.level, "owner") && (
        <section aria-labelledby="danger">
          <h2 id="danger">Delete this project</h2>
          <p>Deletion is permanent. Type the project&apos;s path to confirm.</p>
          <form method="post" action={`/api/projects/${project.path}/delete`}>
            <label htmlFor="confirm-delete">Project path ({project.path})</label>
            <input id="confirm-delete" name="confirm" required />{" "}
            <button type="submit" className="danger">
              Delete project
            </button>
          </form>
        </section>
      )}
    </>
  );
}
