import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import type { CommitObject, TreeObject } from "isomorphic-git";

/**
 * Writes loose objects as git does (`<type> <size>\0<content>`, zlib-deflated, named by its SHA-1)
 * with Node's synchronous hash and deflate. isomorphic-git's writes hash through WebCrypto and
 * deflate through a CompressionStream, both asynchronous: several times the CPU for the small
 * objects of a commit. Objects are rendered exactly as isomorphic-git renders them (same ids).
 */
function writeLoose(gitdir: string, type: "blob" | "tree" | "commit", content: Uint8Array): string {
  const header = Buffer.from(`${type} ${content.length}\0`);
  const oid = createHash("sha1").update(header).update(content).digest("hex");
  const dir = path.join(gitdir, "objects", oid.slice(0, 2));
  const file = path.join(dir, oid.slice(2));
  if (fs.existsSync(file)) return oid;
  // Temp file and rename: a concurrent reader never sees half an object.
  const temp = path.join(dir, `.tmp-${randomBytes(6).toString("hex")}`);
  const deflated = zlib.deflateSync(Buffer.concat([header, content]), { level: 1 });
  try {
    fs.writeFileSync(temp, deflated, { mode: 0o444 });
  } catch (error) {
    // The fan-out directory is created on first need only: a mkdir before every write failed with
    // EEXIST nearly always, a syscall and an exception per object.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(temp, deflated, { mode: 0o444 });
  }
  fs.renameSync(temp, file);
  return oid;
}

export const writeLooseBlob = (gitdir: string, blob: Uint8Array) => writeLoose(gitdir, "blob", blob);

/** Git's tree order: names compared bytewise, a directory's as if it ended with "/". */
export const treeOrderKey = (entry: TreeObject[number]) => Buffer.from(entry.mode === "040000" ? `${entry.path}/` : entry.path, "utf8");

export function writeLooseTree(gitdir: string, tree: TreeObject): string {
  const entries = tree.map((entry) => ({ entry, key: treeOrderKey(entry) })).sort((a, b) => Buffer.compare(a.key, b.key));
  const parts = entries.flatMap(({ entry }) => [Buffer.from(`${entry.mode.replace(/^0/, "")} ${entry.path}\0`, "utf8"), Buffer.from(entry.oid, "hex")]);
  return writeLoose(gitdir, "tree", Buffer.concat(parts));
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

export function writeLooseCommit(gitdir: string, commit: CommitObject): string {
  let text = `tree ${commit.tree || EMPTY_TREE}\n`;
  for (const parent of commit.parent ?? []) text += `parent ${parent}\n`;
  text += `author ${person(commit.author)}\ncommitter ${person(commit.committer ?? commit.author)}\n`;
  if (commit.gpgsig) throw new Error("Signed commits are not written in-process");
  return writeLoose(gitdir, "commit", Buffer.from(`${text}\n${normalizeNewlines(commit.message)}`, "utf8"));
}
