import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { threadId } from "node:worker_threads";
import zlib from "node:zlib";
import type { CommitObject, TreeEntry, TreeObject } from "isomorphic-git";

export type ObjectType = "blob" | "tree" | "commit";

/** An object as read: a blob's bytes, or a tree, commit or tag parsed. */
export type ParsedObject =
  | { type: "blob"; object: Uint8Array }
  | { type: "tree"; object: TreeObject }
  | { type: "commit"; object: CommitObject }
  | { type: "tag"; object: { object: string; type: string } };

/** An object's id: the SHA-1 of `<type> <size>\0<content>`. */
export function objectId(type: ObjectType, content: Uint8Array): string {
  return createHash("sha1").update(`${type} ${content.length}\0`).update(content).digest("hex");
}

const STORED_BLOCK_MAX = 0xffff;

function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  // 5552 bytes is the most that keeps b under 2^32 before the modulo (zlib's NMAX).
  for (let at = 0; at < data.length;) {
    const end = Math.min(at + 5552, data.length);
    for (; at < end; at++) {
      a += data[at];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** A zlib stream of stored blocks (no compression), as zlib writes at level 0. */
export function storedZlib(data: Uint8Array): Buffer {
  const blocks = Math.max(1, Math.ceil(data.length / STORED_BLOCK_MAX));
  const out = Buffer.allocUnsafe(2 + blocks * 5 + data.length + 4);
  out[0] = 0x78;
  out[1] = 0x01;
  let at = 2;
  for (let block = 0; block < blocks; block++) {
    const start = block * STORED_BLOCK_MAX;
    const length = Math.min(STORED_BLOCK_MAX, data.length - start);
    out[at] = block === blocks - 1 ? 1 : 0;
    out.writeUInt16LE(length, at + 1);
    out.writeUInt16LE(~length & 0xffff, at + 3);
    out.set(data.subarray(start, start + length), at + 5);
    at += 5 + length;
  }
  out.writeUInt32BE(adler32(data), at);
  return out;
}

/**
 * zlib stream of an object as stored (loose: with its header; packed: content only). Blobs at
 * git's default loose level (1); trees and commits stored uncompressed (as git's core.compression 0
 * writes them): a tree is mostly 20-byte ids that do not compress, and zlib's set-up alone costs
 * 20-70 us per object, the most of a small object's write.
 */
export const deflateObject = (type: ObjectType, data: Uint8Array) =>
  type === "blob" ? zlib.deflateSync(data, { level: 1 }) : storedZlib(data);

let tempCount = 0;
/** A name no other writer uses at once (process and thread differ; the count differs within one). */
const tempName = (dir: string, prefix: string) =>
  path.join(/*turbopackIgnore: true*/ dir, `${prefix}${process.pid}-${threadId}-${tempCount++}`);

/**
 * Writes a file whole under its final name: a temporary file, then a rename, so a concurrent reader
 * never sees half of it. The directory is created on first need only (a mkdir before every write
 * failed with EEXIST nearly always, a syscall and an exception per object).
 */
export function writeFileAtomically(file: string, data: string | Uint8Array, tempPrefix: string, mode = 0o444): void {
  const dir = path.dirname(file);
  const temp = tempName(dir, tempPrefix);
  try {
    fs.writeFileSync(temp, data, { mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(temp, data, { mode });
  }
  fs.renameSync(temp, file);
}

/**
 * Writes a loose object as git does (`<type> <size>\0<content>`, zlib-deflated, named by its SHA-1)
 * with Node's synchronous hash and deflate. isomorphic-git's writes hash through WebCrypto and
 * deflate through a CompressionStream, both asynchronous: several times the CPU for the small
 * objects of a commit. Objects are encoded exactly as isomorphic-git encodes them (same ids).
 */
export const looseObjectPath = (gitdir: string, oid: string) =>
  path.join(gitdir, "objects", oid.slice(0, 2), oid.slice(2));

export function writeLoose(
  gitdir: string,
  type: ObjectType,
  content: Uint8Array,
  oid = objectId(type, content),
): string {
  const file = looseObjectPath(gitdir, oid);
  if (fs.existsSync(file)) return oid;
  writeFileAtomically(
    file,
    deflateObject(type, Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content])),
    ".tmp-",
  );
  return oid;
}

export const MODE_TYPES: Record<string, TreeEntry["type"]> = { "040000": "tree", "160000": "commit" };

const NON_ASCII = /[^\x00-\x7f]/;
const SLASH = 0x2f;
const SPACE = 0x20;
const isDirectory = (entry: TreeEntry) => entry.mode === "040000" || entry.mode === "40000";

/**
 * Git's tree order: names compared bytewise as UTF-8, a directory's as if it ended with "/".
 * Compared by UTF-16 code unit, which is UTF-8's byte order except where a surrogate (half of a
 * character beyond the BMP, 4 UTF-8 bytes from 0xF0) meets a unit from U+E000 up (3 bytes up to
 * 0xEF): there the surrogate sorts after. No string is made: a tree diff compares hundreds per level.
 */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  const x = a.path;
  const y = b.path;
  const shorter = Math.min(x.length, y.length);
  for (let i = 0; i < shorter; i++) {
    const u = x.charCodeAt(i);
    const v = y.charCodeAt(i);
    if (u === v) continue;
    if (u >= 0xd800 && u <= 0xdfff && v >= 0xe000) return 1;
    if (v >= 0xd800 && v <= 0xdfff && u >= 0xe000) return -1;
    return u - v;
  }
  // One name ended (or both): what follows it in the order is "/" for a directory, else nothing.
  const u = unitAfter(a, shorter);
  const v = unitAfter(b, shorter);
  return u === v ? x.length - y.length : u - v;
}

/** The code unit of `entry`'s tree-order name at `index`: its name's, then "/" for a directory, then none (-1). */
const unitAfter = (entry: TreeEntry, index: number) =>
  entry.path.length > index ? entry.path.charCodeAt(index) : isDirectory(entry) ? SLASH : -1;

/** Frozen trees (the parsed cache's) known to be in git's order: a level is checked once, not at every diff that walks it. */
const knownInTreeOrder = new WeakSet<readonly TreeEntry[]>();

/**
 * A tree's entries in git's tree order. A tree read from the store is in that order already (git
 * writes and checks it so) and is answered as it is, checked once (a diff walks the same levels
 * again and again); only one out of order is sorted: a merge's levels, which come nearly sorted
 * (the base's names, then the new ones), and a malformed tree.
 */
export function inTreeOrder(tree: readonly TreeEntry[]): readonly TreeEntry[] {
  if (knownInTreeOrder.has(tree)) return tree;
  for (let i = 1; i < tree.length; i++)
    if (compareTreeEntries(tree[i - 1], tree[i]) >= 0) return [...tree].sort(compareTreeEntries);
  if (Object.isFrozen(tree)) knownInTreeOrder.add(tree);
  return tree;
}

/**
 * A tree's content (`<mode> <name>\0<20-byte id>` per entry, in git's order) and its entries as a
 * read of it parses them (six-digit modes, sorted), so a write needs no parse to be read back. An
 * entry read before is kept as it is: a commit rewrites a level of hundreds of entries to change one.
 */
export function encodeTree(tree: TreeObject): { content: Buffer; entries: TreeObject } {
  const entries = inTreeOrder(tree).map(asRead);
  const ascii = !entries.some((entry) => NON_ASCII.test(entry.path));
  let size = 0;
  for (const entry of entries)
    size += storedMode(entry).length + (ascii ? entry.path.length : Buffer.byteLength(entry.path)) + 22;
  // Written unit by unit: a Buffer.write per field costs more than the whole entry (a level of
  // hundreds of entries is written for each commit).
  const content = Buffer.allocUnsafe(size);
  let at = 0;
  for (const entry of entries) {
    at = writeLatin1(content, at, storedMode(entry));
    content[at++] = SPACE;
    at = ascii ? writeLatin1(content, at, entry.path) : at + content.write(entry.path, at);
    content[at++] = 0;
    at = writeHexId(content, at, entry.oid);
  }
  return { content, entries };
}

function writeLatin1(into: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) into[at++] = text.charCodeAt(i);
  return at;
}

const HEX_DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_DIGITS["0123456789abcdef".charCodeAt(i)] = i;
  HEX_DIGITS["0123456789ABCDEF".charCodeAt(i)] = i;
}

/** An object id's 20 bytes from its 40 hex digits. */
function writeHexId(into: Buffer, at: number, oid: string): number {
  if (oid.length !== 40) throw new Error(`Not an object id: ${oid}`);
  for (let i = 0; i < 40; i += 2) {
    const high = HEX_DIGITS[oid.charCodeAt(i)] ?? -1;
    const low = HEX_DIGITS[oid.charCodeAt(i + 1)] ?? -1;
    if (high < 0 || low < 0) throw new Error(`Not an object id: ${oid}`);
    into[at++] = (high << 4) | low;
  }
  return at;
}

/** The mode as git stores it: a directory's without its leading zero. */
const storedMode = (entry: TreeEntry) => (entry.mode === "040000" ? "40000" : entry.mode);

/**
 * `entry` as a read of its tree answers it: a six-digit mode and the type it implies. One that came
 * from a read (frozen: the parsed cache's) is itself; a caller's own is copied, not frozen under it.
 */
function asRead(entry: TreeEntry): TreeEntry {
  if (Object.isFrozen(entry) && entry.mode.length === 6) return entry;
  const mode = entry.mode.padStart(6, "0");
  return { mode, path: entry.path, oid: entry.oid, type: MODE_TYPES[mode] ?? "blob" };
}

/** `+hhmm` from isomorphic-git's offset in minutes (west of UTC positive, as JavaScript's getTimezoneOffset). */
function formatOffset(minutes: number): string {
  const negated = minutes === 0 ? minutes : -minutes;
  const sign = Math.sign(negated) || (Object.is(negated, -0) ? -1 : 1);
  const abs = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${sign === -1 ? "-" : "+"}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
}

const person = (p: CommitObject["author"]) => `${p.name} <${p.email}> ${p.timestamp} ${formatOffset(p.timezoneOffset)}`;
const normalizeNewlines = (text: string) => `${text.replace(/\r/g, "").replace(/^\n+/, "").replace(/\n+$/, "")}\n`;
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

export function encodeCommit(commit: CommitObject): Buffer {
  let text = `tree ${commit.tree || EMPTY_TREE}\n`;
  for (const parent of commit.parent ?? []) text += `parent ${parent}\n`;
  text += `author ${person(commit.author)}\ncommitter ${person(commit.committer ?? commit.author)}\n`;
  if (commit.gpgsig) throw new Error("Signed commits are not written in-process");
  return Buffer.from(`${text}\n${normalizeNewlines(commit.message)}`, "utf8");
}
