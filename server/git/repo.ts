import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { registerCache } from "@/server/caches";
import { readTextIfPresent } from "./fs";
import { GC_LEAVES_REFS } from "./gc";
import type { ObjectStage } from "./stage";
import { projectDir, projectRepoPath, workspaceRepoPath } from "./paths";
import { log } from "@/server/log";

/**
 * A bare repository and where its objects can be read from: its own object store first, then the
 * stores named in objects/info/alternates (a workspace fork reads its project's objects there).
 * Its ref updates take turns on `lockKey` (one per repository: a project's, or one workspace's),
 * side by side with those of the other repositories of its `lockGroup` (the project), which a
 * backup holds all at once.
 */
export interface Repo {
  gitdir: string;
  lockKey: string;
  lockGroup: string;
  /** Git dirs whose object stores are searched, in order (own first). */
  objectGitdirs: string[];
  /**
   * The git dir whose store receives objects written in-process. A workspace fork writes into its
   * project's store, the object pool of the project's fork network (as GitHub's fork networks and
   * GitLab's object pools): a change opened from the workspace then copies no object.
   */
  writeGitdir: string;
  /** Set on a repository whose in-process writes are held in memory until flushed (objects.ts `withObjectStage`). */
  stage?: ObjectStage;
}

function alternateGitdirs(gitdir: string): string[] {
  const objectsDir = path.join(gitdir, "objects");
  const text = readTextIfPresent(path.join(objectsDir, "info", "alternates"));
  if (text === null) return [];
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => path.dirname(path.resolve(objectsDir, line)));
}

/** A repository by its git dir; its alternates are read on the first object read (many uses read only refs). */
export function openRepo(gitdir: string, lockKey: string, writeGitdir = gitdir, lockGroup = lockKey): Repo {
  let objectGitdirs: string[] | undefined;
  return {
    gitdir,
    lockKey,
    lockGroup,
    writeGitdir,
    get objectGitdirs() {
      return (objectGitdirs ??= [gitdir, ...alternateGitdirs(gitdir)]);
    },
  };
}

export const openProjectRepo = (projectId: string): Repo => openRepo(projectRepoPath(projectId), projectId);
export const openWorkspaceRepo = (projectId: string, workspaceName: string): Repo =>
  openRepo(
    workspaceRepoPath(projectId, workspaceName),
    `${projectId}/${workspaceName}`,
    projectRepoPath(projectId),
    projectId,
  );

/**
 * A project's store is the pool its workspaces write into: it holds objects that only a
 * workspace's refs reach, so git's gc there (`gc --auto` after a fetch or a push) must never prune
 * unreachable objects. Every repository gets it (an import's staging repository becomes the project's).
 */
const NEVER_PRUNE = "\tpruneExpire = never\n";
const pools = new Set<string>();
/** Repositories remembered as checked; past it the set starts again (a repository's next write reads its config once more). */
const POOLS_CHECKED_MAX = 10_000;
registerCache("git.checkedPools", {
  entries: () => pools.size,
  limit: POOLS_CHECKED_MAX,
  unit: "repositories",
  bound: "cleared whole past the limit",
});

/** Gives a repository made before pools existed the never-prune and leave-refs settings, once per process. */
export function ensureObjectPool(gitdir: string): void {
  if (pools.has(gitdir)) return;
  const file = path.join(gitdir, "config");
  const config = readTextIfPresent(file) ?? "";
  if (!/pruneexpire\s*=\s*never/i.test(config)) fs.appendFileSync(file, `[gc]\n${NEVER_PRUNE}`);
  if (!/packrefs\s*=\s*false/i.test(config)) fs.appendFileSync(file, `[gc]\n${GC_LEAVES_REFS}`);
  if (pools.size >= POOLS_CHECKED_MAX) pools.clear();
  pools.add(gitdir);
}

const LOOSE_OBJECT_DIR = /^[0-9a-f]{2}$/;

/**
 * Whether objects sit in the repository's own store (a push to a workspace lands there; in-process
 * writes go to the pool): then the project may lack some of what the workspace's commits reach.
 */
export function holdsOwnObjects(repo: Repo): boolean {
  const objectsDir = path.join(repo.gitdir, "objects");
  const names = (dir: string) => {
    try {
      return fs.readdirSync(dir);
    } catch {
      return [];
    }
  };
  return (
    names(objectsDir).some((name) => LOOSE_OBJECT_DIR.test(name)) ||
    names(path.join(objectsDir, "pack")).some((name) => name.endsWith(".pack"))
  );
}

export const repoExists = (repo: Repo): boolean => fs.existsSync(path.join(repo.gitdir, "HEAD"));

/**
 * Where the repository's history is cut: the commits of git's `shallow` file (an import with a
 * depth), its own and those of the stores it borrows from (a fork of a shallow project). Git walking
 * that history needs them: it takes them as commits without parents, whose parents are not there.
 */
export function shallowCommits(repo: Repo): string[] {
  const commits = new Set<string>();
  for (const gitdir of repo.objectGitdirs) {
    for (const line of (readTextIfPresent(path.join(gitdir, "shallow")) ?? "").split("\n"))
      if (line.trim()) commits.add(line.trim());
  }
  return [...commits].sort();
}

/** Cuts the history of a new repository (its git dir) where `commits` say (see shallowCommits), before objects arrive. */
export function writeShallowCommits(gitdir: string, commits: string[]): void {
  if (commits.length > 0) fs.writeFileSync(path.join(gitdir, "shallow"), commits.map((oid) => `${oid}\n`).join(""));
}

/** Writes an empty bare repository (what `git init --bare` writes, minus hooks and samples). */
function initBare(gitdir: string, defaultBranch: string, alternates?: string): void {
  if (fs.existsSync(gitdir)) throw new Error(`Repository already exists: ${gitdir}`);
  for (const dir of ["objects/info", "objects/pack", "refs/heads", "refs/tags", "info"]) {
    fs.mkdirSync(path.join(/*turbopackIgnore: true*/ gitdir, dir), { recursive: true });
  }
  fs.writeFileSync(path.join(gitdir, "HEAD"), `ref: refs/heads/${defaultBranch}\n`);
  fs.writeFileSync(
    path.join(gitdir, "config"),
    `[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[gc]\n${NEVER_PRUNE}${GC_LEAVES_REFS}`,
  );
  fs.writeFileSync(path.join(gitdir, "description"), "svc-forge repository\n");
  if (alternates) fs.writeFileSync(path.join(gitdir, "objects", "info", "alternates"), `${alternates}\n`);
}

/** Points HEAD (what a clone checks out) at a branch: a project's new default branch. */
export function setHeadBranch(repo: Repo, branch: string): void {
  fs.writeFileSync(path.join(repo.gitdir, "HEAD"), `ref: refs/heads/${branch}\n`);
}

/** Creates a project's bare repository (empty: write the first commit with writeCommitFromFiles). */
export function initProjectRepo(projectId: string, defaultBranch = "main"): Repo {
  initBare(projectRepoPath(projectId), defaultBranch);
  return openProjectRepo(projectId);
}

/**
 * Creates a workspace fork: a bare repository whose objects/info/alternates points (relatively, so
 * the data directory can move) at the project's object store, and whose history is cut where the
 * project's is (a copy of a shallow project's `shallow` file: git reads only its own, and without it
 * a clone of the fork walks past the project's last imported commit and fails). Refs are set by
 * the caller.
 */
export function initWorkspaceRepo(projectId: string, workspaceName: string, defaultBranch: string): Repo {
  const gitdir = workspaceRepoPath(projectId, workspaceName);
  const projectObjects = path.join(projectRepoPath(projectId), "objects");
  initBare(gitdir, defaultBranch, path.relative(path.join(gitdir, "objects"), projectObjects));
  const repo = openWorkspaceRepo(projectId, workspaceName);
  writeShallowCommits(gitdir, shallowCommits(repo));
  return repo;
}

export function removeRepo(repo: Repo): void {
  fs.rmSync(repo.gitdir, { recursive: true, force: true });
}

/** Removes a project's repository and all its workspace forks. Idempotent. */
export function removeProjectRepos(projectId: string): void {
  fs.rmSync(projectDir(projectId), { recursive: true, force: true });
}

/** The branch HEAD names (a bare repository's default branch). */
export function headBranch(repo: Repo): string | null {
  const head = fs.readFileSync(path.join(repo.gitdir, "HEAD"), "utf8").trim();
  return head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : null;
}

/** A fresh bare repository beside the project's, where an import fetches before it replaces the project's. */
export function initImportStaging(projectId: string, runner: string, defaultBranch: string): Repo {
  const gitdir = path.join(projectDir(projectId), `import-${runner}.git`);
  fs.rmSync(gitdir, { recursive: true, force: true });
  initBare(gitdir, defaultBranch);
  return openRepo(gitdir, projectId);
}

/** The staging repository a runner fetched into, or null once it is gone (swapped in or removed). */
export function openImportStaging(projectId: string, runner: string): Repo | null {
  const gitdir = path.join(projectDir(projectId), `import-${runner}.git`);
  return fs.existsSync(gitdir) ? openRepo(gitdir, projectId) : null;
}

/**
 * Removes import staging repositories of the project (all, or all but `keep`'s). A runner that lost
 * its import may still have a `git fetch` writing into its staging: each is first renamed aside
 * (that git's next write then fails, as its --git-dir is absolute), so removing it races nobody.
 * A discarded directory that still cannot be removed is left for the next call, never an error.
 */
export function removeImportStaging(projectId: string, keep?: Repo): void {
  let names: string[];
  try {
    names = fs.readdirSync(projectDir(projectId));
  } catch {
    return;
  }
  for (const name of names) {
    const gitdir = path.join(projectDir(projectId), name);
    if (gitdir === keep?.gitdir) continue;
    if (/^import-.+\.git$/.test(name)) removeDiscarded(discard(gitdir));
    else if (name.startsWith(DISCARDED_PREFIX)) removeDiscarded(gitdir);
  }
}

const DISCARDED_PREFIX = "discarded-";

function discard(gitdir: string): string {
  const aside = path.join(path.dirname(gitdir), `${DISCARDED_PREFIX}${randomUUID()}`);
  try {
    fs.renameSync(gitdir, aside);
    return aside;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return aside;
    throw error;
  }
}

function removeDiscarded(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    log().warn({ dir, err: (error as Error).message }, "git: left a directory for a later sweep");
  }
}

/**
 * Puts a staged import in place of the project's (empty) repository: two renames on one file
 * system, so readers see either the empty repository or the whole import, never a part of it.
 * The caller holds the project lock.
 */
export function replaceProjectRepo(projectId: string, staging: Repo): void {
  const target = projectRepoPath(projectId);
  const aside = path.join(projectDir(projectId), `replaced-${Date.now()}.git`);
  if (fs.existsSync(target)) fs.renameSync(target, aside);
  fs.renameSync(staging.gitdir, target);
  fs.rmSync(aside, { recursive: true, force: true });
}

/** Empties a project's repository (an import that did not complete starts again from nothing). */
export function resetProjectRepo(projectId: string, defaultBranch: string): Repo {
  fs.rmSync(projectRepoPath(projectId), { recursive: true, force: true });
  return initProjectRepo(projectId, defaultBranch);
}
