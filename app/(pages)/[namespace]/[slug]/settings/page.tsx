import Link from "next/link";
import { Flash } from "../../../_components/flash";
import { ProjectFields } from "../../../_components/hidden-fields";
import { ProjectHeader } from "../../../_components/project-header";
import { SettingsNav } from "../../../_components/settings-nav";
import { atLeast, type ProjectRouteParams } from "../../../_lib/project";
import { loadSettings } from "../../../_lib/settings";
import { projectTitle } from "../../../_lib/title";
import { updateProject } from "./actions";

export const generateMetadata = projectTitle(() => "Settings");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function SettingsPage({ params, searchParams }: Props) {
  const loaded = await loadSettings(await params, "write");
  const query = await searchParams;
  const { api, namespace, slug, base, project } = loaded;
  const isAdmin = atLeast(loaded.level, "admin");
  const branches = isAdmin ? (await api.repository.branches({ namespace, slug })).branches : [];
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="settings" canWrite />
      <h1>Settings</h1>
      <SettingsNav base={base} current="general" isAdmin={isAdmin} />
      <Flash query={query} />
      {isAdmin ? (
        <form action={updateProject} aria-labelledby="general" className="stack">
          <h2 id="general">General</h2>
          <ProjectFields namespace={namespace} slug={slug} back={`${base}/settings`} />
          <label htmlFor="project-name">Name</label>
          <input
            id="project-name"
            name="name"
            defaultValue={project.slug}
            required
            maxLength={64}
            pattern="[A-Za-z0-9_\-]+"
            aria-describedby="project-name-help"
          />
          <p id="project-name-help" className="muted">
            Renaming moves the pages and the clone URL; old links and remotes stop working.
          </p>
          <label htmlFor="project-description">Description</label>
          <input id="project-description" name="description" defaultValue={project.description} maxLength={350} />
          <label htmlFor="project-visibility">Visibility</label>
          <select id="project-visibility" name="visibility" defaultValue={project.visibility}>
            <option value="private">private</option>
            <option value="public">public</option>
          </select>
          <label htmlFor="project-branch">Default branch</label>
          <select id="project-branch" name="defaultBranch" defaultValue={project.defaultBranch}>
            {branches.map((branch) => (
              <option key={branch.name} value={branch.name}>
                {branch.name}
              </option>
            ))}
          </select>
          <div>
            <button type="submit" className="primary">
              Save
            </button>
          </div>
        </form>
      ) : (
        <dl>
          <dt>Path</dt>
          <dd>{project.path}</dd>
          <dt>Description</dt>
          <dd>{project.description || "None"}</dd>
          <dt>Visibility</dt>
          <dd>{project.visibility}</dd>
          <dt>Default branch</dt>
          <dd>{project.defaultBranch}</dd>
        </dl>
      )}
      <p>
        Clone URL: <code>{project.remote}</code> · <Link href={`${base}/settings/policy`}>Policy</Link> (approvals,
        protection, evaluators)
      </p>
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
