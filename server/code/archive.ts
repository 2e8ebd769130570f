import type { Identity } from "@/server/auth";
import { gitReadable } from "./stream";
import { readAt, type ProjectRef } from "./at";

export const ARCHIVE_FORMATS = ["tar.gz", "zip"] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];

export interface Archive {
  /** `<slug>-<12 hex of the commit>`: the file name's stem and the tree's prefix. */
  name: string;
  commit: string;
  format: ArchiveFormat;
  /** Read lazily: `git archive` starts when the first chunk is pulled and is killed on cancel. */
  open(): ReadableStream<Uint8Array>;
}

/** `<slug>-<12 hex of the commit>`. */
export const archiveStem = (slug: string, commit: string) => `${slug}-${commit.slice(0, 12)}`;

/** The archive's ETag: one per commit and format (git archive's output is a function of both). */
export const archiveEtag = (commit: string, format: ArchiveFormat) => `"${commit}.${format}"`;

/** The tree at a ref as `git archive` writes it, streamed from git (never held whole). */
export async function projectArchive(
  identity: Identity,
  ref: ProjectRef,
  name: string | undefined,
  format: ArchiveFormat,
): Promise<Archive> {
  const at = await readAt(identity, ref, name);
  const stem = archiveStem(at.project.slug, at.commit);
  return {
    name: stem,
    commit: at.commit,
    format,
    open: () => gitReadable(["archive", `--format=${format}`, `--prefix=${stem}/`, at.commit], at.repo.gitdir),
  };
}
