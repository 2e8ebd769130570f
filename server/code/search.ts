import type { Identity } from "@/server/auth";
import { invalid, unprocessable } from "@/server/errors";
import { streamGit } from "@/server/git";
import { config } from "@/server/config";
import { SEARCH_LINE_CHARS_MAX } from "@/server/limits";
import { readAt, type ProjectRef } from "./at";
import { records } from "./lines";

export interface SearchQuery {
  q: string;
  ref?: string;
  path?: string;
  regex: boolean;
  caseSensitive: boolean;
  limit: number;
}

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

/** Exit codes of git grep: 0 matches, 1 none; anything else is a refusal of the pattern (128). */
const NO_MATCH = 1;

/**
 * `git grep` on the bare repository at one commit: a fixed string unless `regex` (POSIX extended),
 * binary files skipped, `path` a glob pathspec. Reading stops after `limit` matches (git is
 * killed), and a search still running after SEARCH_TIME_LIMIT_MS (config) is killed and refused.
 */
export async function searchCode(identity: Identity, ref: ProjectRef, query: SearchQuery) {
  const timeLimitMs = config.searchTimeLimitMs;
  const at = await readAt(identity, ref, query.ref);
  const args = [
    "-c",
    "grep.patternType=basic",
    "-c",
    "grep.fallbackToNoIndex=false",
    "grep",
    "--null",
    "-n",
    "-I",
    "--no-color",
    "--full-name",
  ];
  args.push(query.regex ? "-E" : "-F");
  if (!query.caseSensitive) args.push("-i");
  args.push("-e", query.q, at.commit, "--");
  if (query.path) args.push(`:(glob)${query.path}`);
  const started = performance.now();
  const git = await streamGit(args, { gitdir: at.repo.gitdir });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    git.kill();
  }, timeLimitMs);
  const prefix = `${at.commit}:`;
  const matches: SearchMatch[] = [];
  let truncated = false;
  try {
    for await (const record of records(git.stdout)) {
      if (matches.length === query.limit) {
        truncated = true;
        break;
      }
      matches.push(parseMatch(record, prefix));
    }
  } finally {
    clearTimeout(timer);
    git.kill();
  }
  const { exitCode, stderr } = await git.exit;
  // One that ended past the limit before its timer fired (a busy event loop) is refused alike.
  if (timedOut || performance.now() - started > timeLimitMs)
    throw unprocessable(
      `The search ran past ${timeLimitMs} ms and was stopped: narrow the pattern or the path`,
      "SEARCH_TIMEOUT",
    );
  if (!truncated && exitCode !== 0 && exitCode !== NO_MATCH)
    throw invalid(`Invalid search: ${stderr.replace(/^fatal: /, "").trim()}`, "VALIDATION_ERROR");
  return { ref: at.ref, commit: at.commit, matches, truncated };
}

/** `<commit>:<path>\0<line>\0<text>` (the path cannot hold a NUL, so the first two split safely). */
function parseMatch(record: Buffer, prefix: string): SearchMatch {
  const pathEnd = record.indexOf(0);
  const lineEnd = record.indexOf(0, pathEnd + 1);
  const text = record.subarray(lineEnd + 1).toString("utf8");
  return {
    path: record.subarray(0, pathEnd).toString("utf8").slice(prefix.length),
    line: Number(record.subarray(pathEnd + 1, lineEnd).toString("latin1")),
    text: text.length > SEARCH_LINE_CHARS_MAX ? text.slice(0, SEARCH_LINE_CHARS_MAX) : text,
  };
}
