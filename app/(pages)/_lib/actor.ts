import type { Identity } from "@/server/auth";

/** An event or issue actor ("user:<id>", "agent:<id>") as a person reads it: the caller by name, others by a short id. */
export function actorLabel(actor: string | null, viewer: Identity): string {
  if (!actor) return "someone";
  if (viewer.kind === "user" && actor === `user:${viewer.userId}`) return viewer.username;
  const [kind, id] = actor.split(":", 2);
  return id ? `${kind} ${id.slice(0, 8)}` : actor;
}
