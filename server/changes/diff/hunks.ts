import { DIFF_FILE_LINES_MAX } from "@/server/limits";

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
  previousPath: string | null;
  status: "added" | "modified" | "deleted" | "renamed";
  binary: boolean;
  hunks: PatchHunk[];
  additions: number;
  deletions: number;
  /** More than DIFF_FILE_LINES_MAX diff lines: the hunks stop there. */
  truncated: boolean;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** A file's patch text (the shared diff service's DiffFile.patch) as numbered hunks for the change page. */
export function patchHunks(patch: string): Pick<PatchFile, "hunks" | "truncated"> {
  const hunks: PatchHunk[] = [];
  let shown = 0;
  let truncated = false;
  let oldLine = 0;
  let newLine = 0;
  for (const line of patch.split("\n")) {
    const header = HUNK.exec(line);
    if (header) {
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      hunks.push({ header: line, lines: [] });
      continue;
    }
    const hunk = hunks.at(-1);
    if (!hunk) continue;
    const mark = line[0];
    if (mark !== "+" && mark !== "-" && mark !== " ") continue; // "\ No newline at end of file", the trailing ""
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
  return { hunks: hunks.filter((hunk) => hunk.lines.length > 0), truncated };
}
