import { patchHunks, type PageCaller } from "@/server/api";
import { DiffFiles } from "./diff-file";

type Totals = { files: number; additions: number; deletions: number };
type ReadDiffFileData = Awaited<ReturnType<PageCaller["code"]["commit"]>>["files"][number];

const NO_THREADS = new Map();
const NO_ACTIONS = { addComment: async () => {}, setThreadResolved: async () => {} };

/** The "Files changed" section of a commit or a comparison: the change page's diff view, without comments. */
export function ReadDiff({ totals, files }: { totals: Totals; files: ReadDiffFileData[] }) {
  return (
    <section aria-labelledby="files">
      <h2 id="files">
        Files changed{" "}
        <span className="muted">
          ({totals.files}, +{totals.additions} −{totals.deletions})
        </span>
      </h2>
      {totals.files > files.length && <p className="muted">The first {files.length} files are shown.</p>}
      <DiffFiles
        files={files.map((file) => ({
          ...file,
          ...(file.patch === null ? { hunks: [], truncated: file.tooLarge } : patchHunks(file.patch)),
        }))}
        firstIndex={0}
        threads={NO_THREADS}
        pageUrl=""
        canComment={false}
        changeId=""
        tipSha=""
        actions={NO_ACTIONS}
      />
    </section>
  );
}
