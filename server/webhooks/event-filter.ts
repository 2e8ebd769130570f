import { SUBSCRIBABLE_EVENT_KINDS } from "@/server/events";

/**
 * A webhook's `events`: `*` (every kind) or a comma-separated subset of the subscribable kinds.
 * Returns the normalized form (trimmed, deduplicated, in the spec's order) or an error message.
 */
export function normalizeEventFilter(raw: string): { value: string } | { error: string } {
  const names = raw.split(",").map((name) => name.trim());
  if (names.length === 1 && names[0] === "*") return { value: "*" };
  if (names.some((name) => name === "")) return { error: "events must be * or a comma-separated list of event kinds" };
  const unknown = names.filter((name) => !(SUBSCRIBABLE_EVENT_KINDS as readonly string[]).includes(name));
  if (unknown.length)
    return {
      error: `unknown event kind(s): ${unknown.join(", ")}; use * or any of ${SUBSCRIBABLE_EVENT_KINDS.join(", ")}`,
    };
  return { value: SUBSCRIBABLE_EVENT_KINDS.filter((kind) => names.includes(kind)).join(",") };
}

export function subscribes(filter: string, kind: string): boolean {
  return filter === "*" || filter.split(",").includes(kind);
}
