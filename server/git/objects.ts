import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import git from "isomorphic-git";
import { registerCache } from "@/server/caches";
import type { CommitObject, TreeEntry, TreeObject } from "isomorphic-git";
import { gitFs } from "./fs";
import {
  MODE_TYPES,
  encodeCommit,
  encodeTree,
  looseObjectPath,
  writeLoose,
  type ObjectType,
  type ParsedObject,
} from "./loose";
import { ensureObjectPool, type Repo } from "./repo";
import { countMiss, keepParsed, keptParsed } from "./parsed-cache";
import { ObjectStage } from "./stage";

export type { CommitObject, TreeEntry, TreeObject };

// isomorphic-git's `cache` keeps each pack's parsed index and, once an object of it was read, the
// whole pack and some objects it inflated, for as long as the cache object lives (packed reads drop
// from ~5 ms to under 1 ms). One cache per object store, for the CACHED_STORES_MAX stores used
// last; a store's cache is dropped when a pack it may hold is gone: `git gc` consolidates a store's
// packs into one now and then (pack.ts), and every consolidation's old packs stayed in memory for
// the life of the process.
const CACHED_STORES_MAX = 64;
interface StoreCache {
  cache: object;
  /** The store's pack indexes when its pack directory last changed, and that change's time. */
  packs: Set<string>;
  changedMs: number;
}
const holder = globalThis as unknown as { __svcPackCaches?: Map<string, StoreCache> };
const storeCaches = () => (holder.__svcPackCaches ??= new Map<string, StoreCache>());

const packDir = (gitdir: string) => path.join(gitdir, "objects", "pack");
const packDirChangedMs = (gitdir: string) => fs.statSync(packDir(gitdir), { throwIfNoEntry: false })?.mtimeMs ?? 0;
const packIndexes = (gitdir: string) =>
  new Set(
    fs.existsSync(packDir(gitdir)) ? fs.readdirSync(packDir(gitdir)).filter((name) => name.endsWith(".idx")) : [],
  );

function cacheFor(gitdir: string): object {
  const stores = storeCaches();
  const changedMs = packDirChangedMs(gitdir);
  let store = stores.get(gitdir);
  if (store && store.changedMs !== changedMs) {
    const packs = packIndexes(gitdir);
    if ([...store.packs].some((name) => !packs.has(name))) store = undefined;
    else Object.assign(store, { packs, changedMs });
  }
  store ??= { cache: {}, packs: packIndexes(gitdir), changedMs };
  stores.delete(gitdir);
  stores.set(gitdir, store);
  if (stores.size > CACHED_STORES_MAX) stores.delete(stores.keys().next().value!);
  return store.cache;
}

/** The pack indexes (file, then the promise of its parse) isomorphic-git holds in a store's cache. */
function heldPackIndexes(cache: object): Array<[file: string, index: unknown]> {
  return Object.getOwnPropertySymbols(cache).flatMap((symbol) => {
    const held = (cache as Record<symbol, unknown>)[symbol];
    return held instanceof Map
      ? [...(held as Map<unknown, unknown>)].filter(
          (entry): entry is [string, unknown] => typeof entry[0] === "string" && entry[0].endsWith(".idx"),
        )
      : [];
  });
}

/** The pack index files isomorphic-git holds parsed (with their packs, once read) in every store's cache. */
export function cachedPackIndexes(): string[] {
  return [...storeCaches().values()].flatMap(({ cache }) => heldPackIndexes(cache).map(([file]) => file));
}
registerCache("git.packReads", {
  entries: () => cachedPackIndexes().length,
  limit: null,
  unit: "packs",
  bound: `the packs of the ${CACHED_STORES_MAX} object stores read last; a store's are dropped when one of its packs is gone (git gc)`,
});

const errorCode = (error: unknown) => (error as { code?: string }).code;
const isNotFound = (error: unknown) => errorCode(error) === "NotFoundError";

/**
 * Parses a raw tree object. isomorphic-git refuses a whole tree when one name is unsafe to check
 * out (`GIT~1`, `a\b`); a tree imported or pushed before those rules must still read, so reads
 * parse it here (`<mode> <name>\0<20-byte id>` per entry) and let the names through. Scanned in
 * JavaScript, a mode made once per kind and an ASCII name decoded as latin1: each Buffer call costs
 * more than the bytes it reads, and a fleet's levels are hundreds of entries parsed per commit.
 */
export function parseTreeContent(content: Uint8Array): TreeObject {
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const end = bytes.length;
  const entries: TreeObject = [];
  let at = 0;
  while (at < end) {
    let space = at;
    while (space < end && bytes[space] !== 0x20) space++;
    let nul = space + 1;
    let ascii = true;
    for (; nul < end && bytes[nul] !== 0; nul++) if (bytes[nul] > 0x7f) ascii = false;
    if (nul + 21 > end) throw new Error("Malformed tree object");
    const mode = modeAt(bytes, at, space);
    entries.push({
      mode,
      path: bytes.toString(ascii ? "latin1" : "utf8", space + 1, nul),
      oid: bytes.toString("hex", nul + 1, nul + 21),
      type: MODE_TYPES[mode] ?? "blob",
    });
    at = nul + 21;
  }
  return entries;
}

/** Each mode seen, six digits, by its octal value (a tree has a handful; a malformed one may have any). */
const modes = new Map<number, string>();
const MODES_KEPT_MAX = 64;

function modeAt(bytes: Buffer, from: number, to: number): string {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = bytes[i] - 0x30;
    if (digit < 0 || digit > 7 || to - from > 6) return bytes.toString("utf8", from, to).padStart(6, "0");
    value = value * 8 + digit;
  }
  const known = modes.get(value);
  if (known !== undefined) return known;
  const mode = bytes.toString("latin1", from, to).padStart(6, "0");
  if (modes.size < MODES_KEPT_MAX) modes.set(value, mode);
  return mode;
}

export type { ParsedObject };

/**
 * A commit's headers and message as isomorphic-git parses them: `tree` first, the `parent` lines
 * right after it, then other headers (first occurrence wins; continuation lines start with a
 * space), and the message normalized (no CR, no leading blank lines, one final newline).
 */
function parseCommitContent(content: Uint8Array): CommitObject {
  const text = Buffer.from(content).toString("utf8");
  const split = text.indexOf("\n\n");
  const headers: string[] = [];
  for (const line of text.slice(0, split).split("\n")) {
    if (line[0] === " ") headers[headers.length - 1] += `\n${line.slice(1)}`;
    else headers.push(line);
  }
  const keyOf = (header: string) => header.slice(0, header.indexOf(" "));
  const valueOf = (header: string) => header.slice(header.indexOf(" ") + 1);
  if (headers.length === 0 || keyOf(headers[0]) !== "tree") throw new Error("Malformed commit object");
  const commit: Record<string, unknown> = {
    message: `${text
      .slice(split + 2)
      .replace(/\r/g, "")
      .replace(/^\n+/, "")
      .replace(/\n+$/, "")}\n`,
    tree: valueOf(headers[0]),
  };
  const parent: string[] = [];
  let at = 1;
  for (; at < headers.length && keyOf(headers[at]) === "parent"; at++) parent.push(valueOf(headers[at]));
  commit.parent = parent;
  for (; at < headers.length; at++)
    if (!(keyOf(headers[at]) in commit)) commit[keyOf(headers[at])] = valueOf(headers[at]);
  for (const role of ["author", "committer"])
    if (typeof commit[role] === "string") commit[role] = parsePerson(commit[role]);
  return commit as unknown as CommitObject;
}

function parsePerson(text: string): CommitObject["author"] {
  const [, name, email, timestamp, offset] = text.match(/^(.*) <(.*)> (.*) (.*)$/) ?? [];
  const [, sign, hours, minutes] = offset?.match(/(\+|-)(\d\d)(\d\d)/) ?? [];
  if (name === undefined || sign === undefined) throw new Error("Malformed commit signature");
  const east = (sign === "+" ? 1 : -1) * (Number(hours) * 60 + Number(minutes));
  return { name, email, timestamp: Number(timestamp), timezoneOffset: east === 0 ? east : -east };
}

/**
 * A loose blob, tree or commit read directly: isomorphic-git re-hashes every object it reads
 * through WebCrypto (asynchronous, most of a small read's CPU); git itself does not verify on read.
 * Tags and packed objects go through isomorphic-git.
 */
function readLoose(gitdir: string, oid: string): ParsedObject | null {
  const file = looseObjectPath(gitdir, oid);
  if (!fs.existsSync(file)) return null;
  const stored = readIfStillThere(file);
  if (!stored) return null;
  const raw = zlib.inflateSync(stored);
  const space = raw.indexOf(0x20);
  const type = raw.toString("latin1", 0, space);
  if (type !== "blob" && type !== "tree" && type !== "commit") return null;
  return keepParsed(oid, parseContent(type, raw.subarray(raw.indexOf(0, space) + 1)), { looseIn: gitdir });
}

/**
 * A loose object's bytes, or null when it went between the check and the read: git's gc moved it
 * into a pack (`prune-packed` after `gc --auto`, which runs beside the server), where the caller
 * looks next.
 */
function readIfStillThere(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function parseContent(type: ObjectType, content: Uint8Array): ParsedObject {
  if (type === "tree") return { type, object: parseTreeContent(content) };
  if (type === "commit") return { type, object: parseCommitContent(content) };
  return { type, object: content };
}

/**
 * Reads and parses an object from the repository or its alternates; null when none holds it.
 * Loose objects of every store first (a workspace's new objects are loose in its project's pool),
 * then isomorphic-git (packs, tags).
 */
export async function readObject(repo: Repo, oid: string): Promise<ParsedObject | null> {
  const known = repo.stage?.get(oid) ?? keptParsed(oid, repo.objectGitdirs);
  return known ?? countMiss(await readFromStores(repo, oid));
}

async function readFromStores(repo: Repo, oid: string): Promise<ParsedObject | null> {
  for (const gitdir of repo.objectGitdirs) {
    const loose = readLoose(gitdir, oid);
    if (loose) return loose;
  }
  for (const gitdir of repo.objectGitdirs) {
    const packed = await readPacked(gitdir, oid);
    if (packed) return packed;
  }
  return null;
}

/**
 * An object of the store's packs, through isomorphic-git: its content parsed as a loose one's is,
 * a tree or commit kept with the pack index that holds it (a store never prunes: the object stays
 * while the index does; git gc's consolidation drops the index). Tags as isomorphic-git parses them.
 */
async function readPacked(gitdir: string, oid: string): Promise<ParsedObject | null> {
  const cache = cacheFor(gitdir);
  try {
    const raw = await git.readObject({ fs: gitFs, gitdir, oid, format: "content", cache });
    if (raw.type === "tag") {
      const tag = await git.readObject({ fs: gitFs, gitdir, oid, format: "parsed", cache });
      return { type: "tag", object: tag.object } as ParsedObject;
    }
    if (!(raw.object instanceof Uint8Array) || (raw.type !== "blob" && raw.type !== "tree" && raw.type !== "commit"))
      throw new Error(`Object ${oid} read as ${raw.type}, not content`);
    const parsed = parseContent(raw.type, raw.object);
    const index = await packIndexHolding(cache, gitdir, oid);
    return index ? keepParsed(oid, parsed, { packIndex: index }) : parsed;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The index of `gitdir`'s packs that `oid` was found in: isomorphic-git's cache holds each index it read, parsed. */
async function packIndexHolding(cache: object, gitdir: string, oid: string): Promise<string | undefined> {
  const prefix = `${packDir(gitdir)}${path.sep}`;
  for (const [file, index] of heldPackIndexes(cache)) {
    if (!file.startsWith(prefix)) continue;
    const parsed = (await Promise.resolve(index).catch(() => undefined)) as
      { offsets?: Map<string, number> } | undefined;
    if (parsed?.offsets?.has(oid)) return file;
  }
  return undefined;
}

export async function hasObject(repo: Repo, oid: string): Promise<boolean> {
  return (await readObject(repo, oid)) !== null;
}

export class MissingObjectError extends Error {
  constructor(
    readonly oid: string,
    readonly expected: string,
  ) {
    super(`Object ${oid} is not a ${expected} in this repository`);
    this.name = "MissingObjectError";
  }
}

export async function readCommit(repo: Repo, oid: string): Promise<CommitObject> {
  const parsed = await readObject(repo, oid);
  if (parsed?.type !== "commit") throw new MissingObjectError(oid, "commit");
  return parsed.object;
}

export async function readTree(repo: Repo, oid: string): Promise<TreeObject> {
  const parsed = await readObject(repo, oid);
  if (parsed?.type !== "tree") throw new MissingObjectError(oid, "tree");
  return parsed.object;
}

export async function readBlob(repo: Repo, oid: string): Promise<Uint8Array> {
  const parsed = await readObject(repo, oid);
  if (parsed?.type !== "blob") throw new MissingObjectError(oid, "blob");
  return parsed.object;
}

/** Where `repo`'s new objects go (a workspace writes into its project's pool). */
function writeTarget(repo: Repo): string {
  if (repo.writeGitdir !== repo.gitdir) ensureObjectPool(repo.writeGitdir);
  return repo.writeGitdir;
}

/** Writes an object (held in memory when `repo` has a stage); a tree or commit is kept parsed as a read would return it. */
function writeObject(repo: Repo, type: ObjectType, content: Uint8Array, parsed = parseContent(type, content)): string {
  if (repo.stage) return repo.stage.add(type, content, parsed);
  const target = writeTarget(repo);
  const oid = writeLoose(target, type, content);
  keepParsed(oid, parsed, { looseIn: target });
  return oid;
}

export const writeBlob = async (repo: Repo, blob: Uint8Array) => writeObject(repo, "blob", blob);
export const writeCommitObject = async (repo: Repo, commit: CommitObject) =>
  writeObject(repo, "commit", encodeCommit(commit));
export const writeTree = async (repo: Repo, tree: TreeObject) => {
  const { content, entries } = encodeTree(tree);
  return writeObject(repo, "tree", content, { type: "tree", object: entries });
};

/**
 * `repo` with its writes held in memory (an ObjectStage) until `flushStagedObjects`; reads see them.
 * For a chain of in-process merges: git spawned on it sees only what was flushed.
 */
export const withObjectStage = (repo: Repo): Repo => ({ ...repo, stage: new ObjectStage() });

export function flushStagedObjects(repo: Repo): void {
  repo.stage?.flush(writeTarget(repo));
}
