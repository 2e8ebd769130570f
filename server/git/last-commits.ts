import type { Repo } from "./repo";
import { runGit } from "./spawn";

/** The newest commit that touched an entry of a directory. */
export interface LastCommit {
  oid: string;
  summary: string;
  /** Committer time, ISO 8601. */
  time: string;
}

/** How far back one walk looks: an entry untouched for longer shows no commit. */
const WALK_COMMITS = 5000;
const CACHED_WALKS = 256;
const walks = new Map<string, Promise<Map<string, LastCommit>>>();

/** Each entry's newest commit, from the paths of one `git log --name-only` walk (merges show none: their changes are their parents'). */
function parseWalk(stdout: string, dirPath: string): Map<string, LastCommit> {
  const prefix = dirPath === "" ? "" : `${dirPath}/`;
  const found = new Map<string, LastCommit>();
  for (const record of stdout.split("\x01")) {
    const headerEnd = record.indexOf("\0");
    if (headerEnd < 0) continue;
    const [oid, seconds, ...subject] = record.slice(0, headerEnd).split(" ");
    const commit = { oid, summary: subject.join(" "), time: new Date(Number(seconds) * 1000).toISOString() };
    for (const path of record
      .slice(headerEnd + 1)
      .replace(/^\n/, "")
      .split("\0")) {
      if (!path.startsWith(prefix)) continue;
      const name = path.slice(prefix.length).split("/", 1)[0];
      if (name && !found.has(name)) found.set(name, commit);
    }
  }
  return found;
}

/**
 * The last commit of every entry of `dirPath` at `commit`: one git walk limited to the directory,
 * kept per (repository, commit, directory) since a commit's history never changes.
 */
export function lastCommitsIn(repo: Repo, commit: string, dirPath: string): Promise<Map<string, LastCommit>> {
  const key = `${repo.gitdir}\0${commit}\0${dirPath}`;
  const cached = walks.get(key);
  if (cached) return cached;
  const walk = runGit(
    [
      "--literal-pathspecs",
      "log",
      "-z",
      "--format=%x01%H %ct %s",
      "--name-only",
      "--no-renames",
      `--max-count=${WALK_COMMITS}`,
      commit,
      "--",
      ...(dirPath === "" ? [] : [dirPath]),
    ],
    { gitdir: repo.gitdir },
  ).then(({ stdout }) => parseWalk(stdout, dirPath));
  walks.set(key, walk);
  walk.catch(() => walks.delete(key));
  if (walks.size > CACHED_WALKS) walks.delete(walks.keys().next().value!);
  return walk;
}
