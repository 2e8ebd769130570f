import path from "node:path";
import type { Identity } from "@/server/auth";
import { notFound } from "@/server/errors";
import { blobAt, readBlob } from "@/server/git";
import { readAt, type ProjectRef } from "./at";

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

/**
 * The Content-Type a raw file is served with: images and PDF by extension, and text/plain for any
 * text, HTML, SVG, XML and JavaScript included (with `Content-Security-Policy: sandbox` and nosniff
 * on the answer, nothing from a repository runs on our origin).
 */
export function rawContentType(filePath: string, bytes: Uint8Array): string {
  const known = SAFE_TYPES[path.extname(filePath).toLowerCase()];
  if (known) return known;
  return bytes.subarray(0, 8000).includes(0) ? "application/octet-stream" : TEXT;
}

/** One file's bytes at a ref, with its blob id (the ETag) and the type to serve it as. */
export async function rawFile(identity: Identity, ref: ProjectRef, filePath: string, name?: string) {
  const at = await readAt(identity, ref, name);
  const oid = await blobAt(at.repo, at.commit, filePath);
  if (!oid) throw notFound(`No file ${filePath} at ${at.ref}`);
  const bytes = await readBlob(at.repo, oid);
  return { oid, bytes, contentType: rawContentType(filePath, bytes) };
}
