import "server-only";
import { cache } from "react";
import { ACTOR_NAMES_MAX } from "@/server/limits";
import { session } from "./session";

export interface ActorName {
  actor: string;
  kind: "user" | "agent" | "system" | "unknown";
  username: string | null;
  displayName: string | null;
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

/** Display names asked for during one page render, by username, and those not yet read. */
const displayNameBatch = cache(() => ({
  names: new Map<string, Promise<string | null>>(),
  waiting: new Map<string, { resolve: (name: string | null) => void; reject: (error: unknown) => void }>(),
}));

/**
 * A user's display name (null without one). The names a page's links ask for while it renders are
 * read together: the first asks after the current turn, when its siblings have asked too.
 */
export function displayNameOf(username: string): Promise<string | null> {
  const batch = displayNameBatch();
  const known = batch.names.get(username);
  if (known) return known;
  if (batch.waiting.size === 0) setImmediate(() => void readDisplayNames(batch));
  const name = new Promise<string | null>((resolve, reject) => batch.waiting.set(username, { resolve, reject }));
  batch.names.set(username, name);
  return name;
}

async function readDisplayNames(batch: ReturnType<typeof displayNameBatch>) {
  const waiting = new Map(batch.waiting);
  batch.waiting.clear();
  const usernames = [...waiting.keys()];
  try {
    const { api } = await session();
    const found = new Map<string, string>();
    for (let start = 0; start < usernames.length; start += ACTOR_NAMES_MAX) {
      const { names } = await api.users.displayNames({ usernames: usernames.slice(start, start + ACTOR_NAMES_MAX) });
      for (const { username, displayName } of names) found.set(username, displayName);
    }
    for (const [username, { resolve }] of waiting) resolve(found.get(username) ?? null);
  } catch (error) {
    for (const { reject } of waiting.values()) reject(error);
  }
}
