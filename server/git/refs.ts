import fs from "node:fs";
import path from "node:path";
import { DomainError, conflict, invalid, notFound } from "@/server/errors";
import type { Tx } from "@/server/db";
import { readTextIfPresent } from "./fs";
import { withRepoLock } from "./lock";
import { readObject } from "./objects";
import type { Repo } from "./repo";
import { runGit } from "./spawn";
import { log } from "@/server/log";

export interface RefEntry {
  name: string;
  oid: string;
}

export const branchRef = (branch: string) => `refs/heads/${branch}`;
const OID = /^[0-9a-f]{40}$/;
export const isFullOid = (value: string) => OID.test(value);

/** git check-ref-format rules for a branch name (what `git branch` would accept). */
export function isValidBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 255 || name === "@" || name === "HEAD") return false;
  if (name.startsWith("-") || name.endsWith("/") || name.endsWith(".")) return false;
  if (name.includes("..") || name.includes("@{") || name.includes("//")) return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name
    .split("/")
    .every((segment) => segment.length > 0 && !segment.startsWith(".") && !segment.endsWith(".lock"));
}

function readPackedRefs(repo: Repo): Map<string, string> {
  const refs = new Map<string, string>();
  const text = readTextIfPresent(path.join(repo.gitdir, "packed-refs"));
  if (text === null) return refs;
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#") || line.startsWith("^")) continue;
    const [oid, ref] = line.split(" ");
    if (ref && OID.test(oid)) refs.set(ref, oid);
  }
  return refs;
}

function readLooseRef(repo: Repo, ref: string): string | null {
  const value = readTextIfPresent(path.join(repo.gitdir, ref))?.trim();
  return value && OID.test(value) ? value : null;
}

/** A ref's current oid (loose first, then packed-refs), or null when it does not exist. */
export function readRef(repo: Repo, ref: string): string | null {
  return readLooseRef(repo, ref) ?? readPackedRefs(repo).get(ref) ?? null;
}

function walkLoose(repo: Repo, prefix: string, into: Map<string, string>): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(repo.gitdir, prefix), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const ref = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) walkLoose(repo, ref, into);
    else if (!entry.name.endsWith(".lock")) {
      const oid = readLooseRef(repo, ref);
      if (oid) into.set(ref, oid);
    }
  }
}

/** Branches and tags, sorted by name (tags carry the tag object's oid when annotated). */
export function listRefs(repo: Repo): { branches: RefEntry[]; tags: RefEntry[] } {
  const all = new Map<string, string>();
  for (const [ref, oid] of readPackedRefs(repo)) all.set(ref, oid);
  walkLoose(repo, "refs/heads", all);
  walkLoose(repo, "refs/tags", all);
  const pick = (prefix: string) =>
    [...all]
      .filter(([ref]) => ref.startsWith(prefix))
      .map(([ref, oid]) => ({ name: ref.slice(prefix.length), oid }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { branches: pick("refs/heads/"), tags: pick("refs/tags/") };
}

export const listBranches = (repo: Repo): RefEntry[] => listRefs(repo).branches;

/**
 * The `ref` rule of read routes: only branch names; an unknown name is 404 (never a fallback), a
 * name that is both a branch and a tag is 409 AMBIGUOUS_REF.
 */
export function resolveBranch(repo: Repo, name: string): string {
  const oid = readRef(repo, branchRef(name));
  if (oid && readRef(repo, `refs/tags/${name}`))
    throw conflict(`${name} names both a branch and a tag`, "AMBIGUOUS_REF");
  if (!oid) throw notFound(`Unknown ref ${name}`);
  return oid;
}

/** A compare-and-swap that found the ref elsewhere than expected. */
export class RefConflictError extends DomainError {
  constructor(
    readonly ref: string,
    readonly expected: string | null,
    readonly actual: string | null,
  ) {
    super("conflict", `${ref} moved (expected ${expected ?? "absent"}, found ${actual ?? "absent"})`, "CONFLICT");
    this.name = "RefConflictError";
  }
}

/**
 * Every writer of a repository's refs holds its lock (`withRepoLock`) but the creator of a
 * ref no holder writes (`createUnknownRef`), and git's gc never touches refs here (gc.ts), so a
 * `<ref>.lock` or `packed-refs.lock` found by a holder was left by a writer that died between
 * creating and renaming it. Left in place it would refuse every later merge and push on every
 * instance.
 */
function clearStaleRefLocks(repo: Repo, ref: string): void {
  for (const lockPath of [path.join(repo.gitdir, `${ref}.lock`), path.join(repo.gitdir, "packed-refs.lock")]) {
    if (!fs.existsSync(/*turbopackIgnore: true*/ lockPath)) continue;
    fs.rmSync(lockPath, { force: true });
    log().warn({ lockPath }, "git: removed a stale lock (left by a writer that stopped mid-update)");
  }
}

/** Writes a loose ref through git's own lock-file protocol (`<ref>.lock`, then rename). Caller holds the repository's lock. */
function swapLooseRef(repo: Repo, ref: string, newOid: string, expected: string | null): void {
  const refPath = path.join(repo.gitdir, ref);
  const lockPath = `${refPath}.lock`;
  clearStaleRefLocks(repo, ref);
  try {
    fs.mkdirSync(path.dirname(refPath), { recursive: true });
  } catch {
    throw conflict(`${ref} collides with an existing ref`, "BRANCH_NAME_CONFLICT");
  }
  let fd: number;
  try {
    fd = fs.openSync(lockPath, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new RefConflictError(ref, expected, readRef(repo, ref));
    throw error;
  }
  try {
    const actual = readRef(repo, ref);
    if (actual !== expected) throw new RefConflictError(ref, expected, actual);
    fs.writeSync(fd, `${newOid}\n`);
    fs.closeSync(fd);
    fd = -1;
    if (fs.existsSync(refPath) && fs.statSync(refPath).isDirectory()) {
      try {
        fs.rmdirSync(refPath);
      } catch {
        throw conflict(`${ref} collides with an existing ref`, "BRANCH_NAME_CONFLICT");
      }
    }
    fs.renameSync(lockPath, refPath);
  } catch (error) {
    if (fd >= 0) fs.closeSync(fd);
    fs.rmSync(lockPath, { force: true });
    throw error;
  }
}

/**
 * Moves `ref` to `newOid` only if it still points at `expectedOld` (null: only if it does not
 * exist yet). Serialized per project (in-process and, on PostgreSQL, across instances); throws
 * RefConflictError when the ref moved. Branches may only point at commits the repository holds.
 */
export async function updateRef(
  repo: Repo,
  ref: string,
  newOid: string,
  expectedOld: string | null,
  options: { tx?: Tx } = {},
): Promise<void> {
  if (!OID.test(newOid)) throw new Error(`Not an object id: ${newOid}`);
  if (ref.startsWith("refs/heads/") && (await readObject(repo, newOid))?.type !== "commit") {
    throw invalid(`${newOid} is not a commit in this repository`);
  }
  await withRepoLock(repo, async () => updateRefWhileLocked(repo, ref, newOid, expectedOld), options);
}

/** updateRef for a caller already inside `withRepoLock(repo, ...)` (the lock is not reentrant). */
export async function updateRefWhileLocked(
  repo: Repo,
  ref: string,
  newOid: string,
  expectedOld: string | null,
): Promise<void> {
  if (expectedOld === null) refuseNameClash(repo, ref);
  swapLooseRef(repo, ref, newOid, expectedOld);
}

/**
 * Creates `ref` at `newOid` without the project's lock, through git's lock-file protocol alone; only
 * for a name no other writer can know yet (a new change's pin, named by the id just made for it), so
 * no holder of the lock writes or clears it meanwhile. It clears no lock and answers false, having
 * changed nothing, when anything is in the way (the ref, a lock file, a clash on its path): the
 * caller then takes the locked path, which clears what a writer that died left.
 */
export function createUnknownRef(repo: Repo, ref: string, newOid: string): boolean {
  if (!OID.test(newOid)) throw new Error(`Not an object id: ${newOid}`);
  const refPath = path.join(repo.gitdir, ref);
  const lockPath = `${refPath}.lock`;
  let fd: number;
  try {
    fs.mkdirSync(path.dirname(refPath), { recursive: true });
    fd = fs.openSync(lockPath, "wx");
  } catch {
    return false;
  }
  let created = false;
  try {
    if (readRef(repo, ref) !== null || fs.existsSync(refPath)) return false;
    fs.writeSync(fd, `${newOid}\n`);
    fs.closeSync(fd);
    fd = -1;
    fs.renameSync(lockPath, refPath);
    created = true;
    return true;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
    if (!created) fs.rmSync(lockPath, { force: true });
  }
}

/**
 * A new ref may not be a prefix of an existing one nor have one as its prefix (`a` beside `a/b`):
 * git could not store both. The loose files refuse it themselves; a packed ref does not. Only the
 * names on the ref's own path are read: walking its whole namespace read every change's pin
 * (`refs/svc/changes/*`) on each new change, a cost that grew with the project.
 */
function refuseNameClash(repo: Repo, ref: string): void {
  const clash = (existing: string) => conflict(`${ref} collides with existing ref ${existing}`, "BRANCH_NAME_CONFLICT");
  const packed = readPackedRefs(repo);
  const parts = ref.split("/");
  for (let depth = 2; depth < parts.length; depth++) {
    const ancestor = parts.slice(0, depth).join("/");
    if (packed.has(ancestor) || readLooseRef(repo, ancestor)) throw clash(ancestor);
  }
  const looseBelow = new Map<string, string>();
  walkLoose(repo, ref, looseBelow);
  const below = [...looseBelow.keys(), ...[...packed.keys()].filter((existing) => existing.startsWith(`${ref}/`))];
  if (below.length > 0) throw clash(below[0]);
}

/** Deletes `ref` if it still points at `expectedOld` (git update-ref -d handles packed refs too). */
export async function deleteRef(
  repo: Repo,
  ref: string,
  expectedOld: string,
  options: { tx?: Tx } = {},
): Promise<void> {
  await withRepoLock(
    repo,
    async () => {
      const actual = readRef(repo, ref);
      if (actual !== expectedOld) throw new RefConflictError(ref, expectedOld, actual);
      clearStaleRefLocks(repo, ref);
      await runGit(["update-ref", "-d", ref, expectedOld], { gitdir: repo.gitdir });
    },
    options,
  );
}

/** Where a new branch starts: a branch name or a full 40-hex commit id the repository holds (400 otherwise). */
export async function resolveStartPoint(repo: Repo, startPoint: string): Promise<string> {
  if (isFullOid(startPoint)) {
    if ((await readObject(repo, startPoint))?.type !== "commit")
      throw invalid(`Start point ${startPoint} is not a commit in this repository`);
    return startPoint;
  }
  const oid = isValidBranchName(startPoint) ? readRef(repo, branchRef(startPoint)) : null;
  if (!oid) throw invalid(`Start point ${startPoint} is not a branch or a full commit id`);
  return oid;
}

/** Every ref of the repository (branches, tags, refs/svc/* and the rest), packed and loose. */
export function allRefs(repo: Repo): Map<string, string> {
  const all = readPackedRefs(repo);
  walkLoose(repo, "refs", all);
  return all;
}
