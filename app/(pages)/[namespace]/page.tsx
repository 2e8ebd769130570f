import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { refusalOf } from "@/server/api";
import { RelativeTime } from "../_components/relative-time";
import { EventSentence } from "../_components/event-sentence";
import { Avatar } from "../_components/person";
import { preloadNames } from "../_lib/people";
import { read, session } from "../_lib/session";

type Props = { params: Promise<{ namespace: string }> };

/** `/@alice` arrives as `%40alice`: anything else under one segment is no profile. */
function usernameOf(segment: string): string {
  const name = decodeURIComponent(segment);
  if (!name.startsWith("@") || name.length < 2) notFound();
  return name.slice(1);
}

export async function generateMetadata({ params }: Props) {
  return { title: `@${usernameOf((await params).namespace)}` };
}

/**
 * A person's profile: the projects they own that you can read, the organizations you share with
 * them, and what they did lately on projects you can read. An organization's name leads to its page.
 */
export default async function ProfilePage({ params }: Props) {
  const username = usernameOf((await params).namespace);
  const { api, identity } = await session();
  let profile;
  try {
    profile = await api.users.profile({ username });
  } catch (error) {
    if (refusalOf(error).status !== 404) throw error;
    // An organization's namespace: its page (members only; others get its 404).
    if (identity.kind !== "user") notFound();
    await read(() => api.orgs.get({ org: username }));
    redirect(`/orgs/${encodeURIComponent(username)}`);
  }
  const { user, projects, orgs, activity } = profile;
  await preloadNames(activity.map((event) => event.actor));
  return (
    <>
      <h1 className="person-header">
        <Avatar username={user.username} size={48} />
        {user.displayName && <span className="display-name">{user.displayName}</span>}{" "}
        <span className="username">@{user.username}</span>
      </h1>
      <p className="muted">
        Joined <RelativeTime iso={user.createdAt} />
      </p>
      <section aria-labelledby="projects">
        <h2 id="projects">Projects</h2>
        {projects.length === 0 ? (
          <p>No projects you can see.</p>
        ) : (
          <ul>
            {projects.map((project) => (
              <li key={project.path}>
                <Link href={`/${project.path}`}>{project.path}</Link>{" "}
                <span className="badge">{project.visibility}</span>{" "}
                <span className="muted">
                  updated <RelativeTime iso={project.updatedAt} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="orgs">
        <h2 id="orgs">Organizations</h2>
        {orgs.length === 0 ? (
          <p>No organizations you share.</p>
        ) : (
          <ul>
            {orgs.map((org) => (
              <li key={org.slug}>
                <Link href={`/orgs/${encodeURIComponent(org.slug)}`}>{org.name}</Link>{" "}
                <span className="muted">@{org.slug}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="activity">
        <h2 id="activity">Recent activity</h2>
        {activity.length === 0 ? (
          <p>Nothing you can see.</p>
        ) : (
          <ul>
            {activity.map((event) => (
              <li key={event.id}>
                <EventSentence event={event} project={event.project} />
                {event.project && (
                  <>
                    {" "}
                    in <Link href={`/${event.project}`}>{event.project}</Link>
                  </>
                )}{" "}
                <RelativeTime iso={event.occurredAt} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
