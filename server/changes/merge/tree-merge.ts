import { readTree, writeTree, type Repo, type TreeEntry } from "@/server/git";

type Entry = TreeEntry | undefined;

const same = (a: Entry, b: Entry) =>
  a === b || (a !== undefined && b !== undefined && a.mode === b.mode && a.oid === b.oid);
const isTree = (entry: Entry) => entry?.mode === "040000";
const isFile = (entry: Entry) => entry !== undefined && !isTree(entry);

/** Thrown inside the walk when a path needs more than a per-path pick: git decides the whole merge. */
class NeedsGit extends Error {}

const entriesOf = async (repo: Repo, tree: Entry | string | null): Promise<Map<string, TreeEntry>> => {
  const oid = typeof tree === "string" ? tree : tree?.oid;
  return new Map(oid ? (await readTree(repo, oid)).map((entry) => [entry.path, entry]) : []);
};

/**
 * One level of the merge: per name, the side that changed it from the base wins; both sides
 * changing a directory recurse. Anything else throws NeedsGit. Null when the level ends up empty
 * (git writes no empty subtree).
 */
async function mergeLevel(
  repo: Repo,
  base: Entry | string | null,
  ours: Entry | string,
  theirs: Entry | string,
  isRoot: boolean,
): Promise<string | null> {
  const [b, o, t] = await Promise.all([entriesOf(repo, base), entriesOf(repo, ours), entriesOf(repo, theirs)]);
  const merged: TreeEntry[] = [];
  for (const name of new Set([...b.keys(), ...o.keys(), ...t.keys()])) {
    const [inBase, inOurs, inTheirs] = [b.get(name), o.get(name), t.get(name)];
    let pick: Entry;
    if (same(inOurs, inTheirs)) {
      // git's own shortcut: the same change on both sides resolves only when all three are files;
      // a path both sides deleted or added may be a rename's source or target (rename/rename).
      if (!same(inBase, inOurs) && !(isFile(inBase) && isFile(inOurs))) throw new NeedsGit();
      pick = inOurs;
    } else if (same(inBase, inOurs)) pick = inTheirs;
    else if (same(inBase, inTheirs)) pick = inOurs;
    else if (isTree(inOurs) && isTree(inTheirs) && (inBase === undefined || isTree(inBase))) {
      const oid = await mergeLevel(repo, inBase ?? null, inOurs, inTheirs, false);
      pick = oid ? { mode: "040000", path: name, oid, type: "tree" } : undefined;
    } else throw new NeedsGit();
    if (pick) merged.push(pick);
  }
  if (merged.length === 0 && !isRoot) return null;
  return writeTree(repo, merged);
}

/**
 * The merged tree of a three-way merge that needs no content merge and no rename detection, the
 * common case (each path changed on one side only, or a fast-forward), computed in-process; null
 * when git must decide (a path changed on both sides, deleted or added on both, a file/directory
 * swap under a change of the other side). Where it answers, the tree is the one
 * `git merge-tree --write-tree` writes: a path changed on one side only merges the same way in
 * merge-ort whatever the renames, and a directory git would see as renamed is gone on one side
 * while the other side changed it (so git decides). `tree-merge.test.ts` compares both.
 */
export async function mergeTreesInProcess(
  repo: Repo,
  base: string | null,
  ours: string,
  theirs: string,
): Promise<string | null> {
  if (base === theirs) return ours;
  if (base === ours) return theirs;
  try {
    return await mergeLevel(repo, base, ours, theirs, true);
  } catch (error) {
    if (error instanceof NeedsGit) return null;
    throw error;
  }
}
