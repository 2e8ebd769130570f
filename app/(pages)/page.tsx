import Link from "next/link";
import { session } from "./_lib/session";

export default async function Home() {
  const { identity, api } = await session();
  if (identity.kind !== "user") {
    return (
      <>
        <h1>svc-forge</h1>
        <p>
          A self-hostable code forge for software agents beside people: projects in git, changes proposed by agents and
          people, reviewed, evaluated and merged.
        </p>
        <p>
          <Link href="/login">Sign in</Link> to see your projects.
        </p>
      </>
    );
  }
  const [{ projects }, { orgs }] = await Promise.all([api.projects.list({}), api.orgs.list({})]);
  return (
    <>
      <h1>Your projects</h1>
      {projects.length === 0 ? (
        <p>No projects yet.</p>
      ) : (
        <ul>
          {projects.map((project) => (
            <li key={project.id}>
              <Link href={`/${project.path}`}>{project.path}</Link> <span className="badge">{project.visibility}</span>
            </li>
          ))}
        </ul>
      )}
      <h2>Organizations</h2>
      {orgs.length === 0 ? (
        <p>You belong to no organization.</p>
      ) : (
        <ul>
          {orgs.map((org) => (
            <li key={org.id}>
              <Link href={`/orgs/${org.slug}`}>{org.name}</Link> <span className="muted">({org.role})</span>
            </li>
          ))}
        </ul>
      )}
      <h2 id="new-project">New project</h2>
      <form method="post" action="/api/projects" aria-labelledby="new-project">
        <div className="row">
          <div>
            <label htmlFor="project-name">Name</label>
            <input id="project-name" name="name" required pattern="[A-Za-z0-9_\-]{1,64}" />
          </div>
          <div>
            <label htmlFor="project-visibility">Visibility</label>
            <select id="project-visibility" name="visibility" defaultValue="private">
              <option value="private">private</option>
              <option value="public">public</option>
            </select>
          </div>
          <div>
            <input type="checkbox" id="project-seed" name="seed" value="true" />{" "}
            <label className="check" htmlFor="project-seed">
              Start with example files
            </label>
          </div>
          <div>
            <button type="submit" className="primary">
              Create project
            </button>
          </div>
        </div>
      </form>
    </>
  );
}
