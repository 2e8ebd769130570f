import crypto from "node:crypto";

/** A strong validator of a representation made from `parts` (a body, or what the body is a function of). */
export const strongEtag = (...parts: string[]): string =>
  `"${crypto.createHash("sha256").update(parts.join("\u0000")).digest("base64url").slice(0, 32)}"`;

/** If-None-Match names `etag` (weak comparison, as RFC 9110 says for this header) or is `*`. */
export function ifNoneMatchMatches(req: Request, etag: string): boolean {
  const header = req.headers.get("if-none-match");
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}

/** The ETag of a read of `req`'s URL whose answer is a function of `parts` (a branch and its commit, a row's version). */
export function versionEtag(req: Request, parts: string[]): string {
  const url = new URL(req.url);
  return strongEtag(url.pathname, url.search, ...parts);
}
