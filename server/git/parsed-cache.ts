import fs from "node:fs";
import path from "node:path";
import { processWide, registerCache } from "@/server/caches";
import { looseObjectPath, type ParsedObject } from "./loose";

/**
 * Parsed trees and commits by id, of this process's recent reads and writes. An id names its
 * content for ever, so nothing kept is ever stale; whether a repository holds the object is still
 * asked of the file system every time: each is kept with the file that holds it (its loose file,
 * or the index of the pack it was written into or read from), answered only to a repository whose
 * stores include that file, and only while the file exists. A fleet's loop writes a commit's
 * trees, then reads them back to open the change, to merge it, and again for the next merge's
 * base: each read was a file read, an inflate and a parse. Entries are frozen: callers share them.
 *
 * Weighed as one per tree entry or commit. A parsed entry is about 350 bytes of heap (its id, name
 * and mode as strings of their own; a commit keeps its text), but a tree written from one it read
 * shares every entry it did not change (encodeTree), so a kept level's versions cost little more
 * than one. A fleet's loop reads each agent's level in about three versions (its workspace's, the
 * target's and the merge's): at 50,000 a fleet of 50 agents parsed each level again once levels
 * passed ~350 entries (bench/soak round 11), at 100,000 once they passed ~770 (round 16); at
 * 200,000 none was parsed again with levels up to ~1,250 entries (round 17; ~1,500 by the same
 * ratio, not measured). What a doubling costs depends on how much its added versions share: to
 * 100,000 the heap at the end of a soak stayed as it was (112.2 against 119.6 MB), to 200,000 it
 * grew by ~18 MB (129.6 against 111.6).
 */
const WEIGHT_KEPT = 200_000;
/** A tree weighing more (1 + its entries) is read again each time rather than crowd out the rest. */
const TREE_ENTRIES_KEPT_MAX = 2_000;
/**
 * The file holding an object: its loose file in `gitdir`'s store, or a pack's index. A loose file's
 * path is derived when asked rather than kept: path.join's answer is a rope of its pieces, ~740
 * bytes an entry until something flattens it (~145 then), against the store's name shared by all.
 */
export type ObjectFile = { looseIn: string } | { packIndex: string };
const fileOf = (oid: string, held: ObjectFile) =>
  "looseIn" in held ? looseObjectPath(held.looseIn, oid) : held.packIndex;

const cache = processWide("git.parsedObjects", () => ({
  kept: new Map<string, { parsed: ParsedObject; held: ObjectFile; weight: number }>(),
  weight: 0,
  misses: 0,
}));
const kept = cache.kept;
registerCache("git.parsedObjects", {
  entries: () => cache.weight,
  limit: WEIGHT_KEPT,
  unit: "tree entries and commits",
  bound: `least recently used go first past the limit; a tree of more than ${TREE_ENTRIES_KEPT_MAX} entries is never kept`,
  misses: () => cache.misses,
});

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

/** The parsed object kept for `oid` if a file of one of `gitdirs`' stores holds it, most recently used last. */
export function keptParsed(oid: string, gitdirs: readonly string[]): ParsedObject | undefined {
  const found = kept.get(oid);
  if (!found) return undefined;
  const file = fileOf(oid, found.held);
  if (!gitdirs.some((gitdir) => file.startsWith(gitdir + path.sep))) return undefined;
  if (!fs.existsSync(file)) {
    forget(oid);
    return undefined;
  }
  kept.delete(oid);
  kept.set(oid, found);
  return found.parsed;
}

function forget(oid: string): void {
  const found = kept.get(oid);
  if (!found) return;
  kept.delete(oid);
  cache.weight -= found.weight;
}

/** Counts a tree or commit that was not kept and had to be read from a store (loose or packed); answers it. */
export function countMiss<T extends ParsedObject | null>(read: T): T {
  if (read?.type === "tree" || read?.type === "commit") cache.misses++;
  return read;
}

/** Keeps a tree or commit just read from or written to where `held` says (blobs are not kept); returns what is kept. */
export function keepParsed(oid: string, parsed: ParsedObject, held: ObjectFile): ParsedObject {
  if (parsed.type !== "tree" && parsed.type !== "commit") return parsed;
  const frozen = Object.isFrozen(parsed) ? parsed : freeze(parsed);
  const entry = { parsed: frozen, held, weight: weightOf(parsed) };
  if (entry.weight > TREE_ENTRIES_KEPT_MAX) return frozen;
  forget(oid);
  kept.set(oid, entry);
  cache.weight += entry.weight;
  for (const [oldest] of kept) {
    if (cache.weight <= WEIGHT_KEPT) break;
    forget(oldest);
  }
  return frozen;
}
