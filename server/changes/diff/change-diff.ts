import type { Repo } from "@/server/git";
import type { ChangeDiff, DiffFile } from "@/server/evaluators";
import { readBlobs } from "./blobs";
import { diffTrees, GITLINK_MODE, type RawDiffEntry } from "./tree-diff";

const STATUS: Record<RawDiffEntry["status"], DiffFile["status"]> = {
  A: "added",
  M: "modified",
  D: "deleted",
  T: "modified",
};

const isBinary = (bytes: Buffer) => bytes.subarray(0, 8000).includes(0);

/** Line-count difference by multiset: linear, and equal to a real diff's counts for edits that do not reorder lines. */
export function countLineChanges(
  oldText: string | null,
  newText: string | null,
): { additions: number; deletions: number } {
  const oldLines = oldText ? oldText.split("\n") : [];
  const newLines = newText ? newText.split("\n") : [];
  if (oldText?.endsWith("\n")) oldLines.pop();
  if (newText?.endsWith("\n")) newLines.pop();
  const counts = new Map<string, number>();
  for (const line of oldLines) counts.set(line, (counts.get(line) ?? 0) + 1);
  let additions = 0;
  for (const line of newLines) {
    const left = counts.get(line) ?? 0;
    if (left > 0) counts.set(line, left - 1);
    else additions++;
  }
  let deletions = 0;
  for (const left of counts.values()) deletions += left;
  return { additions, deletions };
}

export class SubmoduleError extends Error {
  constructor(readonly path: string) {
    super(
      path === ".gitmodules"
        ? "Git submodules are unsupported: the workspace has a .gitmodules file at its root. Remove it and commit again."
        : `Git submodules are unsupported: the workspace has a submodule (gitlink) at ${path}. Replace it with regular files and commit again.`,
    );
    this.name = "SubmoduleError";
  }
}

/** Refuses gitlinks among the changed entries and a root .gitmodules (the base never has them: imports refuse them). */
export function assertNoSubmodules(entries: RawDiffEntry[]): void {
  for (const entry of entries) {
    if (entry.newMode === GITLINK_MODE) throw new SubmoduleError(entry.path);
    if (entry.path === ".gitmodules" && entry.newOid) throw new SubmoduleError(".gitmodules");
  }
}

/**
 * The diff of `tip` against `base` with file contents, read from `repo` (which must hold both):
 * one diff-tree and one cat-file spawn whatever the number of files.
 */
export async function buildChangeDiff(repo: Repo, base: string, tip: string): Promise<ChangeDiff> {
  const entries = await diffTrees(repo, base, tip);
  assertNoSubmodules(entries);
  const blobs = await readBlobs(
    repo,
    entries.flatMap((e) => [e.oldOid, e.newOid].filter((oid): oid is string => oid !== null)),
  );
  let additions = 0;
  let deletions = 0;
  const files = entries.map((entry): DiffFile => {
    const oldBytes = entry.oldOid ? blobs.get(entry.oldOid)! : null;
    const newBytes = entry.newOid ? blobs.get(entry.newOid)! : null;
    const binary = (oldBytes !== null && isBinary(oldBytes)) || (newBytes !== null && isBinary(newBytes));
    const oldText = oldBytes && !binary ? oldBytes.toString("utf8") : null;
    const newText = newBytes && !binary ? newBytes.toString("utf8") : null;
    const counts = binary ? { additions: 0, deletions: 0 } : countLineChanges(oldText, newText);
    additions += counts.additions;
    deletions += counts.deletions;
    return {
      path: entry.path,
      status: STATUS[entry.status],
      binary,
      bytes: newBytes?.length ?? 0,
      oldText,
      newText,
      ...counts,
    };
  });
  return { base, tip, files, additions, deletions };
}
