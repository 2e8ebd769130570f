import { GitCommandError, streamGit, type Repo } from "@/server/git";
import { SectionReader, sectionPatch } from "./diff-sections";
import { SummaryReader, type SummaryFile } from "./diff-summary";
import { gitReadable } from "./stream";

/** The tree every root commit is diffed against (git knows it without storing it). */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

export interface DiffFile {
  path: string;
  previousPath: string | null;
  status: "added" | "modified" | "deleted" | "renamed";
  additions: number;
  deletions: number;
  binary: boolean;
  /** The hunks as `git diff` prints them after the file header; null when binary or tooLarge. */
  patch: string | null;
  tooLarge: boolean;
}

export interface DiffTotals {
  files: number;
  additions: number;
  deletions: number;
}

export interface DiffPage {
  totals: DiffTotals;
  files: DiffFile[];
}

export interface DiffOptions {
  /** Lines of context around each change (git's -U). */
  context: number;
  offset: number;
  limit: number;
}

const STATUS: Record<string, DiffFile["status"]> = { A: "added", M: "modified", D: "deleted", T: "modified", R: "renamed" };

/** git's own rename detection (50% similarity), no colour, no external drivers, paths unquoted. */
const diffArgs = (revisions: string[], extra: string[]) => ["-c", "core.quotePath=false", "-c", "diff.noprefix=false", "diff", "-M", "--no-color", "--no-ext-diff", "--no-textconv", ...extra, ...revisions, "--"];

/** What a diff is taken between: two commits (or the empty tree), or `base...tip` (tip since it forked from base). */
export const between = (from: string, to: string) => [from, to];
export const sinceFork = (base: string, tip: string) => [`${base}...${tip}`];

/** How many patch sections a file has: a type change (file <-> symlink) prints as a deletion and a creation. */
const sectionCount = (file: SummaryFile) => (file.status === "T" ? 2 : 1);

/**
 * The diff of `revisions` (see between/sinceFork) as git computes it, one page of files with their
 * patches and the totals over every file, from one `git diff --raw --numstat -z -p` read as a
 * stream: the summary git prints first gives every file's status, paths and counts; of the patches
 * only the page's are decoded, earlier ones are skipped without per-line work, and git is stopped
 * once the page's last patch is read. Memory follows the page, not the diff.
 */
export async function diffCommits(repo: Repo, revisions: string[], options: DiffOptions): Promise<DiffPage> {
  const git = streamGit(diffArgs(revisions, ["--raw", "--numstat", "-z", "-p", "--no-abbrev", `-U${options.context}`]), { gitdir: repo.gitdir });
  const summary = new SummaryReader();
  let sections: SectionReader | null = null;
  let stopped = false;
  try {
    for await (const chunk of git.stdout) {
      let patches: Buffer | null = chunk;
      if (!sections) {
        patches = summary.feed(chunk);
        if (patches === null) continue;
        sections = pageSections(summary.files, options);
      }
      if (sections.feed(patches)) {
        stopped = true;
        break;
      }
    }
    if (!stopped) sections?.finish();
  } finally {
    git.kill();
  }
  const { exitCode, stderr } = await git.exit;
  if (!stopped && exitCode !== 0) throw new GitCommandError(["diff"], exitCode, stderr);
  return assemble(summary.files, sections?.kept ?? [], options);
}

/** A reader keeping the sections of the page's files. */
function pageSections(files: SummaryFile[], options: DiffOptions): SectionReader {
  let first = 0;
  for (let index = 0; index < Math.min(options.offset, files.length); index++) first += sectionCount(files[index]);
  let end = first;
  for (let index = options.offset; index < Math.min(options.offset + options.limit, files.length); index++) end += sectionCount(files[index]);
  return new SectionReader(first, end);
}

function assemble(summary: SummaryFile[], kept: (Buffer | null)[], options: DiffOptions): DiffPage {
  const totals: DiffTotals = { files: summary.length, additions: 0, deletions: 0 };
  for (const file of summary) {
    totals.additions += file.additions;
    totals.deletions += file.deletions;
  }
  let next = 0;
  // git prints files in path order (a rename at its new path): the pages follow it.
  const files = summary.slice(options.offset, options.offset + options.limit).map((file): DiffFile => {
    const patches = kept.slice(next, next + sectionCount(file)).map(sectionPatch);
    next += sectionCount(file);
    const tooLarge = !file.binary && patches.includes(null);
    const patch = file.binary || tooLarge ? null : patches.join("");
    return { path: file.path, previousPath: file.previousPath, status: STATUS[file.status] ?? "modified", additions: file.additions, deletions: file.deletions, binary: file.binary, patch, tooLarge };
  });
  return { totals, files };
}

/**
 * The whole diff as `git diff` prints it (with binary patches and full blob ids, so `git apply`
 * takes it), streamed from git as it writes it.
 */
export const unifiedDiffStream = (repo: Repo, revisions: string[]): ReadableStream<Uint8Array> =>
  gitReadable(diffArgs(revisions, ["--binary", "--full-index"]), repo.gitdir);
