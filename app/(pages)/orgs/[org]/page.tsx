import { read, requireUser } from "../../_lib/session";
import { TableHead } from "../../_components/table-head";

/** An organization's members and teams (members only: the API answers others 404). */
export default async function OrgPage({ params }: { params: Promise<{ org: string }> }) {
  const { api } = await requireUser();
  const org = decodeURIComponent((await params).org);
  const [{ org: info }, { members }, { teams }] = await read(() => Promise.all([api.orgs.get({ org }), api.orgs.members({ org }), api.orgs.teams({ org })]));
  return (
    <>
      <h1>{info.name}</h1>
      <p className="muted">
        Organization <code>{info.slug}</code> · your role: {info.role}
      </p>
      <section aria-labelledby="members">
        <h2 id="members">Members</h2>
        <div className="scroll"><table aria-label="Members">
          <TableHead columns={["User", "Role"]} />
          <tbody>
            {members.map((member) => (
              <tr key={member.user.id}>
                <td>{member.user.username}</td>
                <td>{member.role}</td>
              </tr>
            ))}
          </tbody>
        </table></div>
      </section>
      <section aria-labelledby="teams">
        <h2 id="teams">Teams</h2>
        {teams.length === 0 ? (
          <p>No teams.</p>
        ) : (
          <ul>
            {teams.map((team) => (
              <li key={team.id}>
                <strong>{team.name}</strong> <code>{team.slug}</code>
                {team.description && <> — {team.description}</>}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
