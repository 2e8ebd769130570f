import { CONTENT_VIEW_BYTES_MAX } from "@/server/limits";
import { readBlob, readCommit, readObject, readTree, type CommitObject } from "./objects";
import type { Repo } from "./repo";
import { pathSegments } from "./commit";

/** Every file path of a commit's tree (blobs and symlinks; submodule entries are skipped), sorted. */
export async function listFiles(repo: Repo, commit: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (treeOid: string, prefix: string) => {
    for (const entry of await readTree(repo, treeOid)) {
      if (entry.type === "tree") await walk(entry.oid, `${prefix}${entry.path}/`);
      else if (entry.type === "blob") files.push(`${prefix}${entry.path}`);
    }
  };
  await walk((await readCommit(repo, commit)).tree, "");
  return files.sort();
}

export interface DirectoryEntry {
  name: string;
  kind: "dir" | "file" | "symlink" | "submodule";
}

const byName = (a: DirectoryEntry, b: DirectoryEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const entryKind = (entry: { type: string; mode: string }): DirectoryEntry["kind"] =>
  entry.type === "tree" ? "dir" : entry.type === "commit" ? "submodule" : entry.mode === "120000" ? "symlink" : "file";

/**
 * The direct entries of a directory of a commit (`dirPath` "" = the root), directories first, each
 * sorted by name; null when there is no directory there. Reads only the trees along the path, not
 * the whole commit (a page of a 5,000-file tree reads one or two trees).
 */
export async function listDirectory(repo: Repo, commit: string, dirPath: string): Promise<DirectoryEntry[] | null> {
  let treeOid = (await readCommit(repo, commit)).tree;
  for (const segment of dirPath === "" ? [] : dirPath.split("/")) {
    const entry = (await readTree(repo, treeOid)).find(
      (candidate) => candidate.path === segment && candidate.type === "tree",
    );
    if (!entry) return null;
    treeOid = entry.oid;
  }
  const entries = (await readTree(repo, treeOid)).map((entry): DirectoryEntry => ({
    name: entry.path,
    kind: entryKind(entry),
  }));
  const dirs = entries.filter((entry) => entry.kind === "dir");
  const rest = entries.filter((entry) => entry.kind !== "dir");
  return [...dirs.sort(byName), ...rest.sort(byName)];
}

/** The blob oid at `filePath` in a commit, or null when there is no file there. */
export async function blobAt(repo: Repo, commit: string, filePath: string): Promise<string | null> {
  let segments: string[];
  try {
    segments = pathSegments(filePath);
  } catch {
    return null;
  }
  let treeOid = (await readCommit(repo, commit)).tree;
  for (const [index, segment] of segments.entries()) {
    const entry = (await readTree(repo, treeOid)).find((candidate) => candidate.path === segment);
    if (!entry) return null;
    if (index === segments.length - 1) return entry.type === "blob" ? entry.oid : null;
    if (entry.type !== "tree") return null;
    treeOid = entry.oid;
  }
  return null;
}

export type FileRead = { kind: "content"; value: string } | { kind: "binary" } | { kind: "too_large" };

const BINARY_SNIFF_BYTES = 8000;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Classifies blob bytes the way a viewer needs them: text, binary (NUL or invalid UTF-8), or too large. */
export function classifyBlob(bytes: Uint8Array): FileRead {
  if (bytes.byteLength > CONTENT_VIEW_BYTES_MAX) return { kind: "too_large" };
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { kind: "binary" };
  try {
    return { kind: "content", value: utf8.decode(bytes) };
  } catch {
    return { kind: "binary" };
  }
}

/** A file of a commit, or null when there is no file at that path. */
export async function readFile(repo: Repo, commit: string, filePath: string): Promise<FileRead | null> {
  const oid = await blobAt(repo, commit, filePath);
  return oid ? classifyBlob(await readBlob(repo, oid)) : null;
}

export interface LogEntry {
  sha: string;
  message: string;
  parents: string[];
  tree: string;
  author: { name: string; email: string; timestamp: number };
  committer: { name: string; email: string; timestamp: number };
}

const toEntry = (sha: string, commit: CommitObject): LogEntry => ({
  sha,
  message: commit.message,
  parents: commit.parent,
  tree: commit.tree,
  author: { name: commit.author.name, email: commit.author.email, timestamp: commit.author.timestamp },
  committer: { name: commit.committer.name, email: commit.committer.email, timestamp: commit.committer.timestamp },
});

/** Ancestors of `tip` newest first by committer time (like `git log`), at most `depth` entries. */
export async function log(repo: Repo, tip: string, depth: number): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  const seen = new Set([tip]);
  const queue: LogEntry[] = [toEntry(tip, await readCommit(repo, tip))];
  while (queue.length > 0 && out.length < depth) {
    queue.sort((a, b) => b.committer.timestamp - a.committer.timestamp);
    const next = queue.shift()!;
    out.push(next);
    for (const parent of next.parents) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      // A shallow repository (an import with `depth`) ends its history at commits whose parents it lacks.
      const commit = await readObject(repo, parent);
      if (commit?.type === "commit") queue.push(toEntry(parent, commit.object));
    }
  }
  return out;
}
