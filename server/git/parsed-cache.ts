import type { ParsedObject } from "./loose";

/**
 * Parsed trees and commits by id, of this process's recent loose reads and writes. An id names its
 * content for ever, so nothing is ever stale; whether a repository holds the object is still asked
 * of its store every time (the caller finds the loose file first), so no repository reads another's
 * objects through here. A fleet's loop writes a commit's trees, then reads them back to open the
 * change, to merge it, and again for the next merge's base: each read was a file read, an inflate
 * and a parse. Entries are frozen: callers share them.
 */
const WEIGHT_KEPT = 200_000;
const kept = new Map<string, { parsed: ParsedObject; weight: number }>();
let weight = 0;

const weightOf = (parsed: ParsedObject) => 1 + (parsed.type === "tree" ? parsed.object.length : 0);

function freeze(parsed: ParsedObject): ParsedObject {
  if (parsed.type === "tree") for (const entry of parsed.object) Object.freeze(entry);
  if (parsed.type === "commit") {
    Object.freeze(parsed.object.parent);
    Object.freeze(parsed.object.author);
    Object.freeze(parsed.object.committer);
  }
  Object.freeze(parsed.object);
  return Object.freeze(parsed);
}

/** The parsed object kept for `oid`, most recently used last. */
export function keptParsed(oid: string): ParsedObject | undefined {
  const found = kept.get(oid);
  if (!found) return undefined;
  kept.delete(oid);
  kept.set(oid, found);
  return found.parsed;
}

/** Keeps a tree or commit just read or written (blobs are not kept); returns what is kept. */
export function keepParsed(oid: string, parsed: ParsedObject): ParsedObject {
  if (parsed.type !== "tree" && parsed.type !== "commit") return parsed;
  const already = kept.get(oid);
  if (already) return already.parsed;
  const entry = { parsed: freeze(parsed), weight: weightOf(parsed) };
  if (entry.weight > WEIGHT_KEPT / 100) return entry.parsed;
  kept.set(oid, entry);
  weight += entry.weight;
  for (const [oldest, { weight: dropped }] of kept) {
    if (weight <= WEIGHT_KEPT) break;
    kept.delete(oldest);
    weight -= dropped;
  }
  return entry.parsed;
}
