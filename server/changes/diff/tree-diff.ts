import {
  compareTreeEntries,
  inTreeOrder,
  readCommit,
  readTree,
  runGit,
  uniqueMergeBase,
  type Repo,
  type TreeEntry,
} from "@/server/git";

export const GITLINK_MODE = "160000";

export interface RawDiffEntry {
  path: string;
  /** A added, M modified, D deleted, T type change */
  status: "A" | "M" | "D" | "T";
  oldMode: string;
  newMode: string;
  oldOid: string | null;
  newOid: string | null;
}

const ZERO = /^0{40}$/;

/**
 * What `tip` changes since it forked from `base` (`git diff base...tip`: against their merge base,
 * so project commits the workspace lacks are not shown as reverted). Recursive, no rename
 * detection. Small diffs with one merge base are walked in-process (a spawn costs the server more
 * than the whole walk); others take one git spawn.
 */
export async function diffTrees(repo: Repo, base: string, tip: string): Promise<RawDiffEntry[]> {
  const mergeBase = await uniqueMergeBase(repo, base, tip);
  const entries = mergeBase ? await diffCommitsInProcess(repo, mergeBase, tip) : null;
  return entries ?? diffTreesWithGit(repo, base, tip);
}

/** Above this many changed paths the in-process walk gives way to git. */
export const IN_PROCESS_DIFF_FILES_MAX = 64;

const TREE_MODE = "040000";
const isTree = (entry: TreeEntry | null) => entry?.mode === TREE_MODE;
const sameEntry = (a: TreeEntry, b: TreeEntry) =>
  a === b || (a.oid === b.oid && a.path === b.path && a.mode === b.mode);
const fileKind = (mode: string) => (mode === "120000" ? "link" : mode === GITLINK_MODE ? "gitlink" : "file");

async function diffCommitsInProcess(repo: Repo, from: string, to: string): Promise<RawDiffEntry[] | null> {
  const [a, b] = await Promise.all([readCommit(repo, from), readCommit(repo, to)]);
  const out: RawDiffEntry[] = [];
  return (await walkTrees(repo, a.tree, b.tree, "", out)) ? out : null;
}

/** `git diff-tree -r` of two trees into `out`, in git's order; false once it outgrows IN_PROCESS_DIFF_FILES_MAX. */
async function walkTrees(
  repo: Repo,
  oldTree: string | null,
  newTree: string | null,
  prefix: string,
  out: RawDiffEntry[],
): Promise<boolean> {
  if (oldTree === newTree) return true;
  const ordered = async (oid: string | null) => (oid ? inTreeOrder(await readTree(repo, oid)) : []);
  const [olds, news] = await Promise.all([ordered(oldTree), ordered(newTree)]);
  let i = 0;
  let j = 0;
  while (i < olds.length || j < news.length) {
    // A level a commit rewrote shares its untouched entries with the old one (encodeTree keeps them).
    if (i < olds.length && j < news.length && sameEntry(olds[i], news[j])) {
      i++;
      j++;
      continue;
    }
    const order = i >= olds.length ? 1 : j >= news.length ? -1 : compareTreeEntries(olds[i], news[j]);
    const oldEntry = order <= 0 ? olds[i++] : null;
    const newEntry = order >= 0 ? news[j++] : null;
    const path = `${prefix}${(oldEntry ?? newEntry)!.path}`;
    if (isTree(oldEntry) || isTree(newEntry)) {
      if (!(await walkTrees(repo, oldEntry?.oid ?? null, newEntry?.oid ?? null, `${path}/`, out))) return false;
      continue;
    }
    if (oldEntry && newEntry && oldEntry.oid === newEntry.oid && oldEntry.mode === newEntry.mode) continue;
    const status = !oldEntry ? "A" : !newEntry ? "D" : fileKind(oldEntry.mode) === fileKind(newEntry.mode) ? "M" : "T";
    out.push({
      path,
      status,
      oldMode: oldEntry?.mode ?? "000000",
      newMode: newEntry?.mode ?? "000000",
      oldOid: oldEntry?.oid ?? null,
      newOid: newEntry?.oid ?? null,
    });
    if (out.length > IN_PROCESS_DIFF_FILES_MAX) return false;
  }
  return true;
}

export async function diffTreesWithGit(repo: Repo, base: string, tip: string): Promise<RawDiffEntry[]> {
  const { stdout } = await runGit(
    ["diff", "--raw", "-z", "--no-renames", "--no-ext-diff", "--no-abbrev", `${base}...${tip}`],
    { gitdir: repo.gitdir },
  );
  const parts = stdout.split("\0");
  const entries: RawDiffEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i];
    if (!meta.startsWith(":")) break;
    const [oldMode, newMode, oldOid, newOid, status] = meta.slice(1).split(" ");
    entries.push({
      path: parts[i + 1],
      status: status[0] as RawDiffEntry["status"],
      oldMode,
      newMode,
      oldOid: ZERO.test(oldOid) ? null : oldOid,
      newOid: ZERO.test(newOid) ? null : newOid,
    });
  }
  return entries;
}
