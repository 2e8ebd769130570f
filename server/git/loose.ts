import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { threadId } from "node:worker_threads";
import zlib from "node:zlib";
import type { CommitObject, TreeObject } from "isomorphic-git";

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

/**
 * zlib stream of an object as stored (loose: with its header; packed: content only). Blobs at
 * git's default loose level (1); trees and commits stored (level 0, as git's core.compression 0
 * writes them): a tree is mostly 20-byte ids that do not compress, and zlib's set-up for level 1
 * costs ~50 us per object, the most of a small object's write.
 */
export const deflateObject = (type: ObjectType, data: Uint8Array) => zlib.deflateSync(data, { level: type === "blob" ? 1 : 0 });

let tempCount = 0;
/** A name no other writer uses at once (process and thread differ; the count differs within one). */
export const tempName = (dir: string, prefix: string) => path.join(dir, `${prefix}${process.pid}-${threadId}-${tempCount++}`);

/**
 * Writes a file whole under its final name: a temporary file, then a rename, so a concurrent reader
 * never sees half of it. The directory is created on first need only (a mkdir before every write
 * failed with EEXIST nearly always, a syscall and an exception per object).
 */
export function writeFileAtomically(file: string, data: Uint8Array, tempPrefix: string): void {
  const dir = path.dirname(file);
  const temp = tempName(dir, tempPrefix);
  try {
    fs.writeFileSync(temp, data, { mode: 0o444 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(temp, data, { mode: 0o444 });
  }
  fs.renameSync(temp, file);
}

/**
 * Writes a loose object as git does (`<type> <size>\0<content>`, zlib-deflated, named by its SHA-1)
 * with Node's synchronous hash and deflate. isomorphic-git's writes hash through WebCrypto and
 * deflate through a CompressionStream, both asynchronous: several times the CPU for the small
 * objects of a commit. Objects are encoded exactly as isomorphic-git encodes them (same ids).
 */
export function writeLoose(gitdir: string, type: ObjectType, content: Uint8Array, oid = objectId(type, content)): string {
  const file = path.join(gitdir, "objects", oid.slice(0, 2), oid.slice(2));
  if (fs.existsSync(file)) return oid;
  writeFileAtomically(file, deflateObject(type, Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content])), ".tmp-");
  return oid;
}

/** Git's tree order: names compared bytewise, a directory's as if it ended with "/". */
export const treeOrderKey = (entry: TreeObject[number]) => Buffer.from(entry.mode === "040000" ? `${entry.path}/` : entry.path, "utf8");

export function encodeTree(tree: TreeObject): Buffer {
  const entries = tree.map((entry) => ({ entry, key: treeOrderKey(entry) })).sort((a, b) => Buffer.compare(a.key, b.key));
  return Buffer.concat(entries.flatMap(({ entry }) => [Buffer.from(`${entry.mode.replace(/^0/, "")} ${entry.path}\0`, "utf8"), Buffer.from(entry.oid, "hex")]));
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
