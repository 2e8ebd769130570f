import Link from "next/link";
import { Flash } from "../../_components/flash";
import { UserLink } from "../../_components/person";
import { TableHead } from "../../_components/table-head";
import { read, requireUser } from "../../_lib/session";
import { addTeamMember, createTeam, deleteTeam, putOrgMember, removeOrgMember } from "./actions";

type Props = { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: { params: Promise<{ org: string }> }) {
  return { title: `Organization ${decodeURIComponent((await params).org)}` };
}

/** An organization (members only: the API answers others 404): its projects you can see, members and teams; admins manage both. */
export default async function OrgPage({ params, searchParams }: Props) {
  const { api } = await requireUser();
  const query = await searchParams;
  const org = decodeURIComponent((await params).org);
  const [{ org: info }, { members }, { teams }, { projects }] = await read(() =>
    Promise.all([api.orgs.get({ org }), api.orgs.members({ org }), api.orgs.teams({ org }), api.projects.list({})]),
  );
  const isAdmin = info.role === "admin" || info.role === "owner";
  const self = `/orgs/${encodeURIComponent(org)}`;
  const hidden = (
    <>
      <input type="hidden" name="org" value={info.slug} />
      <input type="hidden" name="back" value={self} />
    </>
  );
  const own = projects.filter((project) => project.path.startsWith(`@${info.slug}/`));
  return (
    <>
      <h1>{info.name}</h1>
      <p className="muted">
        Organization <code>@{info.slug}</code> · your role: {info.role}
      </p>
      <Flash query={query} />
      <section aria-labelledby="projects">
        <h2 id="projects">Projects</h2>
        {own.length === 0 ? (
          <p>No projects you can see.</p>
        ) : (
          <ul>
            {own.map((project) => (
              <li key={project.id}>
                <Link href={`/${project.path}`}>{project.path}</Link>{" "}
                <span className="badge">{project.visibility}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="members">
        <h2 id="members">Members</h2>
        <div className="scroll">
          <table aria-label="Members">
            <TableHead columns={isAdmin ? ["User", "Role", "Action"] : ["User", "Role"]} />
            <tbody>
              {members.map((member) => (
                <tr key={member.user.id}>
                  <td>{member.user.username ? <UserLink username={member.user.username} /> : "a deleted user"}</td>
                  <td>{member.role}</td>
                  {isAdmin && (
                    <td>
                      <form action={removeOrgMember}>
                        {hidden}
                        <input type="hidden" name="username" value={member.user.username ?? ""} />
                        <button type="submit" className="danger" aria-label={`Remove ${member.user.username}`}>
                          Remove
                        </button>
                      </form>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {isAdmin && (
          <form action={putOrgMember} aria-labelledby="add-member">
            <h3 id="add-member">Add a member or change a role</h3>
            {hidden}
            <div className="row">
              <div>
                <label htmlFor="member-username">Username</label>
                <input id="member-username" name="username" required />
              </div>
              <div>
                <label htmlFor="member-role">Role</label>
                <select id="member-role" name="role" defaultValue="read">
                  <option value="read">read</option>
                  <option value="write">write</option>
                  <option value="admin">admin</option>
                  <option value="owner">owner</option>
                </select>
              </div>
              <div>
                <button type="submit" className="primary">
                  Save member
                </button>
              </div>
            </div>
          </form>
        )}
      </section>
      <section aria-labelledby="teams">
        <h2 id="teams">Teams</h2>
        {teams.length === 0 && <p>No teams.</p>}
        {teams.map((team) => (
          <article key={team.id} className="thread" aria-label={`Team ${team.name}`}>
            <p>
              <strong>{team.name}</strong> <code>{team.slug}</code>
              {team.description && <> — {team.description}</>}
            </p>
            {isAdmin && (
              <div className="row">
                <form action={addTeamMember}>
                  {hidden}
                  <input type="hidden" name="team" value={team.slug} />
                  <label htmlFor={`team-${team.slug}-username`}>Add a member to {team.name}</label>
                  <input id={`team-${team.slug}-username`} name="username" required />{" "}
                  <button type="submit">Add</button>
                </form>
                <form action={deleteTeam}>
                  {hidden}
                  <input type="hidden" name="team" value={team.slug} />
                  <button type="submit" className="danger" aria-label={`Delete team ${team.name}`}>
                    Delete team
                  </button>
                </form>
              </div>
            )}
          </article>
        ))}
        {isAdmin && (
          <form action={createTeam} aria-labelledby="new-team">
            <h3 id="new-team">New team</h3>
            {hidden}
            <div className="row">
              <div>
                <label htmlFor="team-slug">Slug</label>
                <input id="team-slug" name="slug" required pattern="[A-Za-z0-9_\-]{1,64}" />
              </div>
              <div>
                <label htmlFor="team-name">Name (optional)</label>
                <input id="team-name" name="name" />
              </div>
              <div>
                <label htmlFor="team-description">Description (optional)</label>
                <input id="team-description" name="description" />
              </div>
              <div>
                <button type="submit" className="primary">
                  Create team
                </button>
              </div>
            </div>
          </form>
        )}
      </section>
    </>
  );
}
