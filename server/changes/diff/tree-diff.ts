import { runGit, type Repo } from "@/server/git";

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
 * detection, one spawn.
 */
export async function diffTrees(repo: Repo, base: string, tip: string): Promise<RawDiffEntry[]> {
  const { stdout } = await runGit(["diff", "--raw", "-z", "--no-renames", "--no-ext-diff", "--no-abbrev", `${base}...${tip}`], { gitdir: repo.gitdir });
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
