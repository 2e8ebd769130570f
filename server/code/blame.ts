import type { Identity } from "@/server/auth";
import { notFound } from "@/server/errors";
import { runGitBytes } from "@/server/git";
import { readAt, type ProjectRef } from "./at";

interface BlameCommit {
  sha: string;
  message: string;
  author: { name: string; email: string; date: string };
}

export interface BlameRange {
  startLine: number;
  endLine: number;
  commit: BlameCommit;
}

const HEADER = /^([0-9a-f]{40}) \d+ (\d+)/;

/** `git blame --porcelain` of one file at a ref: consecutive lines from the same commit as one range, every line covered in order. */
export async function blameFile(identity: Identity, ref: ProjectRef, filePath: string, name?: string) {
  const at = await readAt(identity, ref, name);
  const { stdout, exitCode } = await runGitBytes(["blame", "--porcelain", at.commit, "--", filePath], {
    gitdir: at.repo.gitdir,
    allowExit: [128],
  });
  if (exitCode === 128) throw notFound(`No file ${filePath} at ${at.ref}`);
  return { ref: at.ref, commit: at.commit, path: filePath, ranges: parsePorcelain(stdout.toString("utf8")) };
}

function parsePorcelain(text: string): BlameRange[] {
  const commits = new Map<string, BlameCommit>();
  const ranges: BlameRange[] = [];
  let current: BlameCommit | null = null;
  let line = 0;
  let time = "0";
  for (const row of text.split("\n")) {
    if (row.startsWith("\t")) {
      const last = ranges.at(-1);
      if (last && last.commit === current && last.endLine === line - 1) last.endLine = line;
      else ranges.push({ startLine: line, endLine: line, commit: current! });
      continue;
    }
    const header = HEADER.exec(row);
    if (header) {
      line = Number(header[2]);
      current = commits.get(header[1]) ?? { sha: header[1], message: "", author: { name: "", email: "", date: "" } };
      commits.set(header[1], current);
      continue;
    }
    if (!current) continue;
    const space = row.indexOf(" ");
    const key = row.slice(0, space);
    const value = row.slice(space + 1);
    if (key === "author") current.author.name = value;
    else if (key === "author-mail") current.author.email = value.replace(/^<|>$/g, "");
    else if (key === "author-time") time = value;
    else if (key === "author-tz") current.author.date = new Date(Number(time) * 1000).toISOString();
    else if (key === "summary") current.message = value;
  }
  return ranges;
}
