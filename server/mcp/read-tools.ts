import { count, procedureTool, type Tool } from "./tools";

const project = { project: true } as const;

/** The read-only tools of docs/contracts.md#reading-code: each is one REST route, its body in structuredContent. */
export const READ_TOOLS: Tool[] = [
  procedureTool("get_change_diff", "changes.diffFiles", {
    description:
      "A change's diff as git computes it: files (renames, binary marked) with their unified patches, a page at a time (limit, offset).",
    readOnly: true,
    rename: { change: true },
    summarize: (r) => `${count(r.files, "file")} of ${r.totals.files} (+${r.totals.additions} -${r.totals.deletions})`,
  }),
  procedureTool("get_commit", "code.commit", {
    description: "One commit (full id or branch name) with its diff against its first parent.",
    readOnly: true,
    rename: project,
    summarize: (r) => `${r.commit.sha}: ${String(r.commit.message).split("\n")[0]} (${count(r.files, "file")})`,
  }),
  procedureTool("compare", "code.compare", {
    description:
      "Head's commits that base lacks (oldest first) and the diff from their merge base to head (base and head: branches or full ids).",
    readOnly: true,
    rename: project,
    summarize: (r) => `${r.aheadBy} ahead, ${r.behindBy} behind; ${r.totals.files} files changed`,
  }),
  procedureTool("search_code", "code.search", {
    description:
      "Search the code at a branch with git grep: a fixed string unless regex is true, case-insensitive unless case is true, path a glob.",
    readOnly: true,
    rename: project,
    summarize: (r) => `${count(r.matches, "match", "matches")} at ${r.ref}${r.truncated ? " (truncated)" : ""}`,
  }),
  procedureTool("blame", "code.blame", {
    description: "Which commit last changed each line of a file at a branch.",
    readOnly: true,
    rename: project,
    summarize: (r) => `${r.path} at ${r.ref}: ${count(r.ranges, "range")}`,
  }),
  procedureTool("list_tags", "code.tags", {
    description: "The project's tags, newest first.",
    readOnly: true,
    rename: project,
    summarize: (r) => count(r.tags, "tag"),
  }),
];
