import crypto from "node:crypto";
import { HttpError } from "./errors";

/** A strong validator of a representation made from `parts` (a body, or what the body is a function of). */
export const strongEtag = (...parts: string[]): string => `"${crypto.createHash("sha256").update(parts.join("\u0000")).digest("base64url").slice(0, 32)}"`;

/** If-None-Match names `etag` (weak comparison, as RFC 9110 says for this header) or is `*`. */
export function ifNoneMatchMatches(req: Request, etag: string): boolean {
  const header = req.headers.get("if-none-match");
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}

/** Answered as 304 with the ETag and no body. */
export class NotModified extends HttpError {
  constructor(etag: string) {
    super(304, "Not modified", undefined, {}, { ETag: etag });
    // Control flow, not a failure: tRPC copies a thrown cause's stack, and formatting it (through
    // source maps) cost more than the rest of the 304's dispatch.
    this.stack = `NotModified: ${etag}`;
  }
}

/**
 * For a read whose answer is a function of the URL and a few cheap `parts` (a branch and its commit
 * id): sets the ETag and, when the caller already holds it, stops the read with 304 before the
 * expensive part (reading trees and blobs) runs.
 */
export function revalidateBy(req: Request, headers: Record<string, string>, ...parts: string[]): void {
  const url = new URL(req.url);
  const etag = strongEtag(url.pathname, url.search, ...parts);
  headers.ETag = etag;
  if (ifNoneMatchMatches(req, etag)) throw new NotModified(etag);
}
