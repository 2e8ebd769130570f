import "server-only";
import { cache } from "react";
import { ACTOR_NAMES_MAX } from "@/server/limits";
import { session } from "./session";

export interface ActorName {
  actor: string;
  kind: "user" | "agent" | "system" | "unknown";
  username: string | null;
  agentName: string | null;
}

/** Names asked for during one page render, by actor ("user:<id>", "agent:<id>"). */
const asked = cache(() => new Map<string, Promise<ActorName | undefined>>());

/**
 * Asks the API for the names of these actors in one read (per 500), so the `Person`s of a page
 * do not each ask for their own. Call it with every actor the page shows before rendering them.
 */
export function preloadNames(actors: Iterable<string | null | undefined>): Promise<unknown> {
  const store = asked();
  const missing = [...new Set([...actors].filter((actor): actor is string => !!actor && actor !== "system"))].filter(
    (actor) => !store.has(actor),
  );
  const reads: Promise<unknown>[] = [];
  for (let start = 0; start < missing.length; start += ACTOR_NAMES_MAX) {
    const chunk = missing.slice(start, start + ACTOR_NAMES_MAX);
    const answer = session().then(({ api }) => api.users.actors({ actors: chunk }));
    reads.push(answer);
    for (const actor of chunk)
      store.set(
        actor,
        answer.then((found) => found.actors.find((name) => name.actor === actor)),
      );
  }
  return Promise.all(reads);
}

/** One actor's name (read with the others of the page when they were preloaded). */
export async function actorName(actor: string): Promise<ActorName | undefined> {
  if (!asked().has(actor)) void preloadNames([actor]);
  return asked().get(actor);
}

/** An actor's name as plain text (for an aria-label): "alice", "alice's agent fixer". */
export async function actorText(actor: string | null): Promise<string> {
  if (!actor) return "someone";
  if (actor === "system") return "the system";
  const name = await actorName(actor);
  if (name?.kind === "agent")
    return `${name.username ? `${name.username}'s ` : ""}agent ${name.agentName ?? "(removed)"}`;
  return name?.username ?? "a deleted user";
}
