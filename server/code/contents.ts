import type { Identity } from "@/server/auth";
import { config } from "@/server/config";
import { runGit } from "@/server/git";
import { CONTENTS_BYTES_MAX } from "@/server/limits";
import { projectPath } from "@/server/projects";
import { fileBlob, openBlob } from "./raw";
import { archiveEtag, archiveStem, type ArchiveFormat } from "./archive";
import { readAt, type ProjectRef } from "./at";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The raw route's URL for a file at a commit (immutable: the commit, not the branch). */
const rawUrl = (project: ProjectRef, commit: string, filePath: string) =>
  `${config.baseUrl}/api/projects/${projectPath(project)}/raw?${new URLSearchParams({ ref: commit, path: filePath })}`;

/** Text as UTF-8, anything else (a NUL, invalid UTF-8) as base64. */
function encode(bytes: Buffer): { encoding: "utf-8" | "base64"; content: string } {
  if (!bytes.includes(0)) {
    try {
      return { encoding: "utf-8", content: utf8.decode(bytes) };
    } catch {
      // Not UTF-8: base64 below.
    }
  }
  return { encoding: "base64", content: bytes.toString("base64") };
}

/**
 * One file as JSON, as GitHub's contents API answers it: up to CONTENTS_BYTES_MAX its content
 * (UTF-8 text, or base64), above it `encoding: "none"`, no content, and `downloadUrl` (the raw
 * route, which streams any size). At most CONTENTS_BYTES_MAX + 1 bytes are ever read.
 */
export async function fileContents(identity: Identity, ref: ProjectRef, filePath: string, name?: string) {
  const { at, oid } = await fileBlob(identity, ref, filePath, name);
  const { head, body } = await openBlob(at.repo.gitdir, oid, CONTENTS_BYTES_MAX + 1);
  await body.cancel();
  const whole = head.length <= CONTENTS_BYTES_MAX;
  const size = whole
    ? head.length
    : Number((await runGit(["cat-file", "-s", oid], { gitdir: at.repo.gitdir })).stdout.trim());
  const content = whole ? encode(head) : { encoding: "none" as const, content: "" };
  return {
    path: filePath,
    ref: at.ref,
    commit: at.commit,
    sha: oid,
    size,
    ...content,
    downloadUrl: rawUrl(at.project, at.commit, filePath),
  };
}

/** Where the archive of a ref downloads from (the commit's, so the link does not move) and its ETag, for callers that cannot take a byte stream (tRPC, MCP). */
export async function archiveLink(
  identity: Identity,
  ref: ProjectRef,
  name: string | undefined,
  format: ArchiveFormat,
) {
  const at = await readAt(identity, ref, name);
  const url = `${config.baseUrl}/api/projects/${projectPath(at.project)}/archive?${new URLSearchParams({ ref: at.commit, format })}`;
  return {
    ref: at.ref,
    commit: at.commit,
    format,
    fileName: `${archiveStem(at.project.slug, at.commit)}.${format}`,
    url,
    etag: archiveEtag(at.commit, format),
  };
}
