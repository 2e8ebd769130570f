import type { Identity } from "@/server/auth";
import { diffCommits, sinceFork } from "@/server/code";
import { openProjectRepo, type Repo } from "@/server/git";
import { DIFF_PAGE_FILES } from "@/server/limits";
import { loadChange } from "./load";
import { patchHunks, type PatchFile } from "./diff/hunks";

/** The context a page's hunks show (git's -U). */
const PAGE_CONTEXT = 3;

/** A file of the diff (its index in the whole diff, not the page) shown with `context` lines around its changes. */
export interface Expansion {
  file: number;
  context: number;
}

/**
 * One page of a change's diff with numbered hunks, for readers of its project (404 otherwise): the
 * shared diff service's files (what GET /api/changes/{id}/diff answers), their patches split into
 * lines; the files `expand` names (those of this page) are read again with their wider context.
 */
export async function changeDiffPage(identity: Identity, id: string, page: number, expand: Expansion[] = []) {
  const { change, project } = await loadChange(identity, id, "read", { cachedRow: true });
  const repo = openProjectRepo(project.id);
  const range = sinceFork(change.baseSha, change.tipSha);
  const offset = (page - 1) * DIFF_PAGE_FILES;
  const diff = await diffCommits(repo, range, { context: PAGE_CONTEXT, offset, limit: DIFF_PAGE_FILES });
  const files = diff.files.map(patchFile);
  const wider = expand.filter((e) => e.file >= offset && e.file < offset + files.length && e.context > PAGE_CONTEXT);
  for (const [file, context] of new Map(wider.map((e) => [e.file, e.context])))
    files[file - offset] = await expandedFile(repo, range, file, context);
  return { changeId: change.id, page, pageSize: DIFF_PAGE_FILES, totalFiles: diff.totals.files, files };
}

/** File `index` of the diff again, with `context` lines around its changes (adjacent hunks join). */
async function expandedFile(repo: Repo, range: string[], index: number, context: number): Promise<PatchFile> {
  const [file] = (await diffCommits(repo, range, { context, offset: index, limit: 1 })).files;
  return patchFile(file);
}

type DiffFile = Awaited<ReturnType<typeof diffCommits>>["files"][number];

const patchFile = (file: DiffFile): PatchFile => ({
  path: file.path,
  previousPath: file.previousPath,
  status: file.status,
  binary: file.binary,
  additions: file.additions,
  deletions: file.deletions,
  ...(file.patch === null ? { hunks: [], truncated: file.tooLarge } : patchHunks(file.patch)),
});
