import { Flash } from "../../../../_components/flash";
import { UserLink } from "../../../../_components/person";
import { ProjectFields } from "../../../../_components/hidden-fields";
import { ProjectHeader } from "../../../../_components/project-header";
import { SettingsNav } from "../../../../_components/settings-nav";
import type { ProjectRouteParams } from "../../../../_lib/project";
import { loadSettings } from "../../../../_lib/settings";
import { putCollaborator, removeCollaborator } from "../actions";
import { TableHead } from "../../../../_components/table-head";
import { projectTitle } from "../../../../_lib/title";

export const generateMetadata = projectTitle(() => "Collaborators");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function CollaboratorsPage({ params, searchParams }: Props) {
  const loaded = await loadSettings(await params, "admin");
  const query = await searchParams;
  const { api, namespace, slug, base, project } = loaded;
  const { collaborators } = await api.projectAccess.collaborators({ namespace, slug });
  const self = `${base}/settings/collaborators`;
  const ref = <ProjectFields namespace={namespace} slug={slug} back={self} />;
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="settings" canWrite />
      <h1>Collaborators</h1>
      <SettingsNav base={base} current="collaborators" isAdmin />
      <Flash query={query} />
      {collaborators.length === 0 ? (
        <p>No collaborators.</p>
      ) : (
        <div className="scroll">
          <table aria-label="Collaborators">
            <TableHead columns={["User", "Permission", "Action"]} />
            <tbody>
              {collaborators.map(({ user, permission }) => (
                <tr key={user.id}>
                  <td>
                    <UserLink username={user.username} />
                  </td>
                  <td>{permission}</td>
                  <td>
                    <form action={removeCollaborator}>
                      {ref}
                      <input type="hidden" name="username" value={user.username} />
                      <button type="submit" className="danger" aria-label={`Remove ${user.username}`}>
                        Remove
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2 id="add-collaborator">Add or change a collaborator</h2>
      <form action={putCollaborator} aria-labelledby="add-collaborator">
        {ref}
        <div className="row">
          <div>
            <label htmlFor="collaborator-username">Username</label>
            <input id="collaborator-username" name="username" required />
          </div>
          <div>
            <label htmlFor="collaborator-permission">Permission</label>
            <select id="collaborator-permission" name="permission" defaultValue="read">
              <option value="read">read</option>
              <option value="write">write</option>
              <option value="admin">admin</option>
            </select>
          </div>
          <div>
            <button type="submit" className="primary">
              Save
            </button>
          </div>
        </div>
      </form>
    </>
  );
}
