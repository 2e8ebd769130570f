import Link from "next/link";
import { actorName, displayNameOf } from "../_lib/people";

/** A person's generated picture (decorative: their name is always beside it). */
export function Avatar({ username, size = 20 }: { username: string; size?: number }) {
  return <img className="avatar" src={`/avatars/${encodeURIComponent(username)}`} alt="" width={size} height={size} />;
}

/**
 * A user's avatar and username linked to their profile; their display name, when they set one, is
 * the link's title (`displayName` when the caller has it already, else read with the page's others).
 */
export async function UserLink({ username, displayName }: { username: string; displayName?: string | null }) {
  const name = displayName === undefined ? await displayNameOf(username) : displayName;
  return (
    <Link
      href={`/@${encodeURIComponent(username)}`}
      className="person"
      title={name ? `${name} (@${username})` : undefined}
    >
      <Avatar username={username} />
      {username}
    </Link>
  );
}

/** An agent named with the person it works for: "alice's agent fixer". */
export function AgentName({ name, owner }: { name: string | null; owner: string | null }) {
  return (
    <>
      {owner && (
        <>
          <UserLink username={owner} />
          {"'s "}
        </>
      )}
      agent <strong>{name ?? "(removed)"}</strong>
    </>
  );
}

/**
 * Whoever an actor string ("user:<id>", "agent:<id>", "system") names, as a person reads it: a user
 * by name linked to their profile, an agent with its owner, never an id.
 */
export async function Person({ actor }: { actor: string | null }) {
  if (!actor) return <>someone</>;
  if (actor === "system") return <>the system</>;
  const name = await actorName(actor);
  if (name?.kind === "agent") return <AgentName name={name.agentName} owner={name.username} />;
  if (name?.username) return <UserLink username={name.username} displayName={name.displayName} />;
  return <>a deleted user</>;
}

/** Who wrote a change or a comment: the agent and its owner when an agent did, else the user. */
export function AuthorOf({ author, agentId }: { author: { username: string | null } | null; agentId: string | null }) {
  if (agentId) return <Person actor={`agent:${agentId}`} />;
  return author?.username ? <UserLink username={author.username} /> : <>a deleted user</>;
}

/** The actors `AuthorOf` will ask names for, to preload. */
export const agentActors = (rows: Array<{ agentId: string | null }>) =>
  rows.flatMap((row) => (row.agentId ? [`agent:${row.agentId}`] : []));
