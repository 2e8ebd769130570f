import { GitCommandError, streamGit, type Repo } from "@/server/git";
import { DIFF_PATCH_BYTES_MAX } from "@/server/limits";
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
const DIFF_HEADER = Buffer.from("diff --git ");
const BINARY_LINE = Buffer.from("Binary files ");
const PLUS = 43;
const MINUS = 45;
const AT = 64;
const D = 100;
const B = 66;

/** git's own rename detection (50% similarity), no colour, no external drivers, paths unquoted. */
const diffArgs = (revisions: string[], extra: string[]) => ["-c", "core.quotePath=false", "-c", "diff.noprefix=false", "diff", "-M", "--no-color", "--no-ext-diff", "--no-textconv", ...extra, ...revisions, "--"];

interface Section {
  additions: number;
  deletions: number;
  binary: boolean;
  inHunks: boolean;
  /** The patch bytes kept (only for the page's files), or null once past DIFF_PATCH_BYTES_MAX. */
  kept: Buffer[] | null;
  keptBytes: number;
}

/** One entry of `--raw -z`: the status letter and one path, or two for a rename. */
interface RawEntry {
  status: string;
  path: string;
  previousPath: string | null;
}

/** What a diff is taken between: two commits (or the empty tree), or `base...tip` (tip since it forked from base). */
export const between = (from: string, to: string) => [from, to];
export const sinceFork = (base: string, tip: string) => [`${base}...${tip}`];

/**
 * The diff of `revisions` (see between/sinceFork) as git computes it, one page of files with their patches and the
 * totals over every file: one `git diff --raw -p` read as a stream, counting every file's lines but
 * keeping only the page's patch text, so memory follows the page, not the diff.
 */
export async function diffCommits(repo: Repo, revisions: string[], options: DiffOptions): Promise<DiffPage> {
  const git = streamGit(diffArgs(revisions, ["--raw", "-z", "-p", "--no-abbrev", `-U${options.context}`]), { gitdir: repo.gitdir });
  const entries: RawEntry[] = [];
  const sections: Section[] = [];
  const keep = (index: number) => index >= options.offset && index < options.offset + options.limit;
  let rawPhase = true;
  let pendingRaw: string[] = [];
  let current: Section | null = null;
  let remainder: Buffer | null = null;
  try {
    for await (const chunk of git.stdout) {
      const data: Buffer = remainder ? Buffer.concat([remainder, chunk]) : chunk;
      remainder = null;
      let at = 0;
      while (rawPhase && at < data.length) {
        const end = data.indexOf(0, at);
        if (end === -1) break;
        const token = data.subarray(at, end).toString("utf8");
        at = end + 1;
        if (token === "") rawPhase = false;
        else pendingRaw = takeRawToken(pendingRaw, token, entries);
      }
      if (rawPhase) {
        remainder = Buffer.from(data.subarray(at));
        continue;
      }
      for (let end = data.indexOf(10, at); end !== -1; end = data.indexOf(10, at)) {
        current = patchLine(data.subarray(at, end + 1), current, sections, keep);
        at = end + 1;
      }
      if (at < data.length) remainder = Buffer.from(data.subarray(at));
    }
    if (remainder && !rawPhase) patchLine(remainder, current, sections, keep);
  } finally {
    git.kill();
  }
  const { exitCode, stderr } = await git.exit;
  if (exitCode !== 0) throw new GitCommandError(["diff"], exitCode, stderr);
  return assemble(entries, sections, options);
}

/** Feeds one NUL-separated token of `--raw -z` output: a ":modes oids status" header, then one path (two for R/C). */
function takeRawToken(pending: string[], token: string, entries: RawEntry[]): string[] {
  const next = [...pending, token];
  const status = next[0].split(" ").at(-1)!.charAt(0);
  const needed = status === "R" || status === "C" ? 3 : 2;
  if (next.length < needed) return next;
  entries.push(needed === 3 ? { status, previousPath: next[1], path: next[2] } : { status, previousPath: null, path: next[1] });
  return [];
}

function patchLine(line: Buffer, current: Section | null, sections: Section[], keep: (index: number) => boolean): Section | null {
  const first = line[0];
  // A hunk's lines start with " ", "+", "-", "\\" or "@@": only a "d" can open a file's section.
  if (first === D && line.length > DIFF_HEADER.length && line.compare(DIFF_HEADER, 0, DIFF_HEADER.length, 0, DIFF_HEADER.length) === 0) {
    const section: Section = { additions: 0, deletions: 0, binary: false, inHunks: false, kept: keep(sections.length) ? [] : null, keptBytes: 0 };
    sections.push(section);
    return section;
  }
  if (!current) return current;
  if (!current.inHunks) {
    if (first === AT && line[1] === AT) current.inHunks = true;
    else {
      if (first === B && line.compare(BINARY_LINE, 0, BINARY_LINE.length, 0, Math.min(line.length, BINARY_LINE.length)) === 0) current.binary = true;
      return current;
    }
  }
  if (first === PLUS) current.additions++;
  else if (first === MINUS) current.deletions++;
  if (current.kept) {
    current.keptBytes += line.length;
    // Chunks are never reused by the stream, so a view is enough (no copy per line).
    if (current.keptBytes > DIFF_PATCH_BYTES_MAX) current.kept = null;
    else current.kept.push(line);
  }
  return current;
}

/**
 * Pairs raw entries with patch sections: git prints both from the same queue, in the same order,
 * except that a type change (file <-> symlink) prints as a deletion and then a creation.
 */
function assemble(entries: RawEntry[], sections: Section[], options: DiffOptions): DiffPage {
  const totals: DiffTotals = { files: entries.length, additions: 0, deletions: 0 };
  const files: DiffFile[] = [];
  let next = 0;
  entries.forEach((entry, index) => {
    const parts = sections.slice(next, next + (entry.status === "T" ? 2 : 1));
    next += parts.length;
    const binary = parts.some((part) => part.binary);
    const additions = binary ? 0 : parts.reduce((sum, part) => sum + part.additions, 0);
    const deletions = binary ? 0 : parts.reduce((sum, part) => sum + part.deletions, 0);
    totals.additions += additions;
    totals.deletions += deletions;
    if (index < options.offset || index >= options.offset + options.limit) return;
    const tooLarge = !binary && parts.some((part) => part.kept === null);
    const patch = binary || tooLarge ? null : Buffer.concat(parts.flatMap((part) => part.kept!)).toString("utf8");
    files.push({ path: entry.path, previousPath: entry.previousPath, status: STATUS[entry.status] ?? "modified", additions, deletions, binary, patch, tooLarge });
  });
  // git prints files in path order (a rename at its new path): the pages follow it.
  return { totals, files };
}

/**
 * The whole diff as `git diff` prints it (with binary patches and full blob ids, so `git apply`
 * takes it), streamed from git as it writes it.
 */
export const unifiedDiffStream = (repo: Repo, revisions: string[]): ReadableStream<Uint8Array> =>
  gitReadable(diffArgs(revisions, ["--binary", "--full-index"]), repo.gitdir);
