import type { Identity } from "@/server/auth";
import { diffCommits, sinceFork } from "@/server/code";
import { openProjectRepo } from "@/server/git";
import { DIFF_PAGE_FILES } from "@/server/limits";
import { loadChange } from "./load";
import { patchHunks, type PatchFile } from "./diff/hunks";

/**
 * One page of a change's diff with numbered hunks, for readers of its project (404 otherwise): the
 * shared diff service's files (what GET /api/changes/{id}/diff answers), their patches split into lines.
 */
export async function changeDiffPage(identity: Identity, id: string, page: number) {
  const { change, project } = await loadChange(identity, id, "read", { cachedRow: true });
  const offset = (page - 1) * DIFF_PAGE_FILES;
  const diff = await diffCommits(openProjectRepo(project.id), sinceFork(change.baseSha, change.tipSha), {
    context: 3,
    offset,
    limit: DIFF_PAGE_FILES,
  });
  const files = diff.files.map((file): PatchFile => ({
    path: file.path,
    previousPath: file.previousPath,
    status: file.status,
    binary: file.binary,
    additions: file.additions,
    deletions: file.deletions,
    ...(file.patch === null ? { hunks: [], truncated: file.tooLarge } : patchHunks(file.patch)),
  }));
  return { changeId: change.id, page, pageSize: DIFF_PAGE_FILES, totalFiles: diff.totals.files, files };
}
