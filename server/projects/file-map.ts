import { WORKSPACE_COMMIT_BYTES_MAX, WORKSPACE_COMMIT_FILES_MAX } from "@/server/limits";
import { tooLarge } from "@/server/errors";
import type { FileMap } from "@/server/git";

/** The per-commit bounds of the spec (2000 files, 25 MiB of content): 413 PAYLOAD_TOO_LARGE beyond. */
export function assertFileMapWithinLimits(files: FileMap): void {
  const paths = Object.keys(files);
  if (paths.length > WORKSPACE_COMMIT_FILES_MAX)
    throw tooLarge(`A commit holds at most ${WORKSPACE_COMMIT_FILES_MAX} files`);
  let bytes = 0;
  for (const content of Object.values(files)) {
    if (content === null) continue;
    bytes += typeof content === "string" ? Buffer.byteLength(content, "utf8") : content.byteLength;
  }
  if (bytes > WORKSPACE_COMMIT_BYTES_MAX)
    throw tooLarge(`A commit holds at most ${WORKSPACE_COMMIT_BYTES_MAX} bytes of content`);
}
