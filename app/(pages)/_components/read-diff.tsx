import { patchHunks } from "@/server/api";
import { DiffFile } from "./diff-file";

/** A file of the read API's diffs (commit, compare). */
export interface ReadDiffFileData {
  path: string;
  previousPath: string | null;
  status: "added" | "modified" | "deleted" | "renamed";
  additions: number;
  deletions: number;
  binary: boolean;
  patch: string | null;
  tooLarge: boolean;
}

const NO_THREADS = new Map();
const NO_ACTIONS = { addComment: async () => {}, setThreadResolved: async () => {} };

/** The files of a commit's or a comparison's diff, with the change page's diff view (no comments). */
export function ReadDiff({ files, pageUrl }: { files: ReadDiffFileData[]; pageUrl: string }) {
  return files.map((file, index) => (
    <DiffFile
      key={file.path}
      file={{ ...file, ...(file.patch === null ? { hunks: [], truncated: file.tooLarge } : patchHunks(file.patch)) }}
      index={index}
      threads={NO_THREADS}
      pageUrl={pageUrl}
      canComment={false}
      changeId=""
      tipSha=""
      actions={NO_ACTIONS}
    />
  ));
}
