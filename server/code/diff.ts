import { GitCommandError, runGitBytes, streamGit, type Repo } from "@/server/git";
import { SectionReader, type Section } from "./diff-sections";
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

const STATUS: Record<string, DiffFile["status"]> = {
  A: "added",
  M: "modified",
  D: "deleted",
  T: "modified",
  R: "renamed",
};

/** git's own rename detection (50% similarity), no colour, no external drivers, paths unquoted. */
const diffArgs = (revisions: string[], extra: string[], paths: string[] = []) => [
  "-c",
  "core.quotePath=false",
  "-c",
  "diff.noprefix=false",
  "diff",
  "-M",
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  ...extra,
  ...revisions,
  "--",
  ...paths.map((path) => `:(literal)${path}`),
];

/** What a diff is taken between: two commits (or the empty tree), or `base...tip` (tip since it forked from base). */
export const between = (from: string, to: string) => [from, to];
export const sinceFork = (base: string, tip: string) => [`${base}...${tip}`];

/** How many patch sections a file has: a type change (file <-> symlink) prints as a deletion and a creation. */
const sectionCount = (file: SummaryFile) => (file.status === "T" ? 2 : 1);

/**
 * The diff of `revisions` (see between/sinceFork) as git computes it, one page of files with their
 * patches and the totals over every file, from one `git diff --raw -z -p` read as a stream: the
 * summary git prints first gives every file's status and paths, every patch section is counted
 * (lines starting with "+" or "-" in its hunks, found by native searches) and only the page's are
 * decoded. Not `--numstat`: beside `-p` it makes git diff every file twice. Memory follows the
 * page, not the diff.
 */
export async function diffCommits(repo: Repo, revisions: string[], options: DiffOptions): Promise<DiffPage> {
  const git = await streamGit(diffArgs(revisions, ["--raw", "-z", "-p", "--no-abbrev", `-U${options.context}`]), {
    gitdir: repo.gitdir,
  });
  const summary = new SummaryReader();
  let sections: SectionReader | null = null;
  let sameBlobs: Promise<Set<string>> | null = null;
  try {
    for await (const chunk of git.stdout) {
      let patches: Buffer | null = chunk;
      if (!sections) {
        patches = summary.feed(chunk);
        if (patches === null) continue;
        sections = pageSections(summary.files, options);
        sameBlobs = binarySameBlobs(
          repo,
          revisions,
          summary.files.slice(options.offset, options.offset + options.limit),
        );
      }
      sections.feed(patches);
    }
    sections?.finish();
  } finally {
    git.kill();
  }
  const { exitCode, stderr } = await git.exit;
  if (exitCode !== 0) throw new GitCommandError(["diff"], exitCode, stderr);
  return assemble(summary.files, sections?.sections ?? [], (await sameBlobs) ?? new Set(), options);
}

/** A reader keeping the sections of the page's files. */
function pageSections(files: SummaryFile[], options: DiffOptions): SectionReader {
  let first = 0;
  for (let index = 0; index < Math.min(options.offset, files.length); index++) first += sectionCount(files[index]);
  let end = first;
  for (let index = options.offset; index < Math.min(options.offset + options.limit, files.length); index++)
    end += sectionCount(files[index]);
  return new SectionReader(first, end);
}

/**
 * Which of `files` that are one blob on both sides (a pure rename, a mode change) git finds binary:
 * their patch has no hunks to tell, and git (as `--numstat`, which answers "-" for them) reads the
 * blob itself, attributes included. One `git diff --numstat` of those paths alone (no renames, so a
 * renamed file is an addition at its path, of the same blob), started while the main diff streams.
 */
function binarySameBlobs(repo: Repo, revisions: string[], files: SummaryFile[]): Promise<Set<string>> | null {
  const paths = files.filter((file) => file.sameBlob).map((file) => file.path);
  if (paths.length === 0) return null;
  const counted = runGitBytes(diffArgs(revisions, ["--no-renames", "--numstat", "-z"], paths), {
    gitdir: repo.gitdir,
  }).then(({ stdout }) => {
    const binary = new Set<string>();
    for (const entry of stdout.toString("utf8").split("\0")) if (entry.startsWith("-\t-\t")) binary.add(entry.slice(4));
    return binary;
  });
  counted.catch(() => undefined); // awaited only when the main diff succeeded
  return counted;
}

function assemble(
  summary: SummaryFile[],
  sections: Section[],
  sameBlobBinary: Set<string>,
  options: DiffOptions,
): DiffPage {
  let next = 0;
  const totals: DiffTotals = { files: summary.length, additions: 0, deletions: 0 };
  const files: DiffFile[] = [];
  // git prints files in path order (a rename at its new path): the pages follow it.
  summary.forEach((file, index) => {
    const own = sections.slice(next, next + sectionCount(file));
    next += sectionCount(file);
    const binary = own.some((section) => section.binary) || (file.sameBlob && sameBlobBinary.has(file.path));
    const additions = binary ? 0 : own.reduce((sum, section) => sum + section.additions, 0);
    const deletions = binary ? 0 : own.reduce((sum, section) => sum + section.deletions, 0);
    totals.additions += additions;
    totals.deletions += deletions;
    if (index < options.offset || index >= options.offset + options.limit) return;
    const patches = own.map((section) => section.patch ?? null);
    const tooLarge = !binary && patches.includes(null);
    const patch = binary || tooLarge ? null : patches.join("");
    files.push({
      path: file.path,
      previousPath: file.previousPath,
      status: STATUS[file.status] ?? "modified",
      additions,
      deletions,
      binary,
      patch,
      tooLarge,
    });
  });
  return { totals, files };
}

/**
 * The whole diff as `git diff` prints it (with binary patches and full blob ids, so `git apply`
 * takes it), streamed from git as it writes it.
 */
export const unifiedDiffStream = (repo: Repo, revisions: string[]): ReadableStream<Uint8Array> =>
  gitReadable(diffArgs(revisions, ["--binary", "--full-index"]), repo.gitdir);
