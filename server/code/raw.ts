import path from "node:path";
import type { Identity } from "@/server/auth";
import { notFound } from "@/server/errors";
import { blobAt } from "@/server/git";
import { readAt, type ProjectRef } from "./at";
import { peekGitOutput } from "./stream";

/** Types a browser shows without running anything; everything else is text/plain or bytes. */
const SAFE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".bmp": "image/bmp",
  ".ico": "image/x-icon",
  ".pdf": "application/pdf",
};
const TEXT = "text/plain; charset=utf-8";
/** How much of a file decides text or binary (git's own rule: a NUL in the first 8000 bytes). */
const SNIFF_BYTES = 8000;

/**
 * The Content-Type a raw file is served with: images and PDF by extension, and text/plain for any
 * text, HTML, SVG, XML and JavaScript included (with `Content-Security-Policy: sandbox` and nosniff
 * on the answer, nothing from a repository runs on our origin).
 */
export function rawContentType(filePath: string, head: Uint8Array): string {
  const known = SAFE_TYPES[path.extname(filePath).toLowerCase()];
  if (known) return known;
  return head.subarray(0, SNIFF_BYTES).includes(0) ? "application/octet-stream" : TEXT;
}

/** A file's blob at a ref (404 when the path is not a file there), with the commit it was read at. */
export async function fileBlob(identity: Identity, ref: ProjectRef, filePath: string, name?: string) {
  const at = await readAt(identity, ref, name);
  const oid = await blobAt(at.repo, at.commit, filePath);
  if (!oid) throw notFound(`No file ${filePath} at ${at.ref}`);
  return { at, oid };
}

/** Starts `git cat-file blob` and reads ahead its first `size` bytes; the body streams the whole blob. */
export const openBlob = (gitdir: string, oid: string, size: number) =>
  peekGitOutput(["cat-file", "blob", oid], gitdir, size);

/**
 * One file at a ref: its blob id (the ETag, known before any byte is read, so a revalidation spawns
 * nothing) and `open()`, which streams the bytes from git with the type to serve them as.
 */
export async function rawFile(identity: Identity, ref: ProjectRef, filePath: string, name?: string) {
  const { at, oid } = await fileBlob(identity, ref, filePath, name);
  return {
    oid,
    async open() {
      const { head, body } = await openBlob(at.repo.gitdir, oid, SNIFF_BYTES);
      return { contentType: rawContentType(filePath, head), body };
    },
  };
}
