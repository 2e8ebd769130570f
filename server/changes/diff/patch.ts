import { runGit, type Repo } from "@/server/git";
import { DIFF_FILE_LINES_MAX } from "@/server/limits";
import { diffTrees, type RawDiffEntry } from "./tree-diff";

export interface PatchLine {
  kind: "context" | "add" | "del";
  oldLine: number | null;
  newLine: number | null;
  text: string;
}

export interface PatchHunk {
  header: string;
  lines: PatchLine[];
}

export interface PatchFile {
  path: string;
  status: "added" | "modified" | "deleted";
  binary: boolean;
  hunks: PatchHunk[];
  additions: number;
  deletions: number;
  /** More than DIFF_FILE_LINES_MAX diff lines: the hunks stop there. */
  truncated: boolean;
}

const STATUS: Record<RawDiffEntry["status"], PatchFile["status"]> = { A: "added", M: "modified", D: "deleted", T: "modified" };
const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Splits `git diff -p` output into per-file sections keyed by the "diff --git" header order. */
function fileSections(patch: string): string[][] {
  const sections: string[][] = [];
  for (const line of patch.split("\n")) {
    if (line.startsWith("diff --git ")) sections.push([]);
    else sections.at(-1)?.push(line);
  }
  return sections;
}

/** Hunks of one file section (the lines after its "diff --git" header). */
export function parseFileSection(lines: string[]): Omit<PatchFile, "path" | "status"> {
  const hunks: PatchHunk[] = [];
  let binary = false;
  let additions = 0;
  let deletions = 0;
  let shown = 0;
  let truncated = false;
  let oldLine = 0;
  let newLine = 0;
  for (const line of lines) {
    const header = HUNK.exec(line);
    if (header) {
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      hunks.push({ header: line, lines: [] });
      continue;
    }
    const hunk = hunks.at(-1);
    if (!hunk) {
      if (line.startsWith("Binary files ")) binary = true;
      continue;
    }
    const mark = line[0];
    if (mark !== "+" && mark !== "-" && mark !== " ") continue; // "\ No newline at end of file", the trailing ""
    if (mark === "+") additions++;
    if (mark === "-") deletions++;
    if (shown >= DIFF_FILE_LINES_MAX) {
      truncated = true;
      if (mark !== "-") newLine++;
      if (mark !== "+") oldLine++;
      continue;
    }
    shown++;
    const text = line.slice(1);
    if (mark === "+") hunk.lines.push({ kind: "add", oldLine: null, newLine: newLine++, text });
    else if (mark === "-") hunk.lines.push({ kind: "del", oldLine: oldLine++, newLine: null, text });
    else hunk.lines.push({ kind: "context", oldLine: oldLine++, newLine: newLine++, text });
  }
  return { binary, hunks: hunks.filter((hunk) => hunk.lines.length > 0), additions, deletions, truncated };
}

/**
 * One page of the diff of `tip` since it forked from `base`, with hunks: one spawn lists every
 * changed path, one more patches only this page's files, so a 500-file change costs what 50 do.
 */
export async function changePatchPage(repo: Repo, base: string, tip: string, page: { offset: number; limit: number }): Promise<{ totalFiles: number; files: PatchFile[] }> {
  const entries = await diffTrees(repo, base, tip);
  const slice = entries.slice(page.offset, page.offset + page.limit);
  if (slice.length === 0) return { totalFiles: entries.length, files: [] };
  const args = ["--literal-pathspecs", "diff", "-p", "--no-color", "--no-renames", "--no-ext-diff", "--unified=3", `${base}...${tip}`, "--", ...slice.map((entry) => entry.path)];
  const { stdout } = await runGit(args, { gitdir: repo.gitdir });
  const sections = fileSections(stdout);
  // git prints the files in its own path order, the same order diffTrees listed them in.
  const files = slice.map((entry, index) => ({ path: entry.path, status: STATUS[entry.status], ...parseFileSection(sections[index] ?? []) }));
  return { totalFiles: entries.length, files };
}
