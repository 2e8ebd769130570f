import { commitAuthorActor } from "../_lib/commit-author";
import { Person, UserLink } from "./person";

/** A commit's author: linked to their profile when this forge wrote the commit for a user or an agent. */
export function CommitAuthor({ author }: { author: { name: string; email?: string } }) {
  const actor = author.email ? commitAuthorActor(author.email) : null;
  if (!actor) return <>{author.name}</>;
  return "username" in actor ? <UserLink username={actor.username} /> : <Person actor={actor.agentActor} />;
}
