import { pathSegments, readBlob, writeCommitFromFiles, writeCommitObject, type FileMap, type Repo } from "@/server/git";
import { unprocessable } from "@/server/errors";
import { RESOLUTION_FILE_BYTES_MAX } from "@/server/limits";
import type { MergeOutcome } from "@/server/changes/merge/merge-tree";

export type ResolutionStrategy = "accept-project" | "accept-workspace" | "manual";

/** Refuses a resolution path that could leave the repository (422 INVALID_PATH). */
export function assertRepoPath(file: string): void {
  try {
    pathSegments(file);
  } catch (error) {
    throw unprocessable((error as Error).message, "INVALID_PATH");
  }
}

/**
 * The contents that replace each conflicted path: the project's side (stage 2), the workspace's
 * side (stage 3) or the caller's text. A side that deleted the path deletes it.
 */
export async function resolutionFiles(
  repo: Repo,
  outcome: MergeOutcome,
  strategy: ResolutionStrategy,
  resolutions: Array<{ file: string; content: string }>,
): Promise<FileMap> {
  const files: FileMap = {};
  if (strategy === "manual") {
    for (const { file, content } of resolutions) {
      assertRepoPath(file);
      if (Buffer.byteLength(content, "utf8") > RESOLUTION_FILE_BYTES_MAX)
        throw unprocessable(`${file} is over the 10 MB resolution limit`, "INVALID_INPUT");
      files[file] = content;
    }
    const missing = outcome.conflictingFiles.filter((file) => !(file in files));
    if (missing.length > 0)
      throw unprocessable(`The resolution does not cover every conflicting file: ${missing.join(", ")}`);
    return files;
  }
  const stage = strategy === "accept-project" ? 2 : 3;
  for (const file of outcome.conflictingFiles) {
    const side = outcome.stages.find((s) => s.path === file && s.stage === stage);
    files[file] = side ? await readBlob(repo, side.oid) : null;
  }
  return files;
}

/**
 * Writes the merge commit of a resolved conflict: merge-tree's tree with `files` applied, parents
 * (head, tip). The tree edit reuses the git layer's file-map commit on a scratch commit.
 */
export async function writeResolvedMerge(
  repo: Repo,
  input: {
    outcome: MergeOutcome;
    files: FileMap;
    head: string;
    tip: string;
    message: string;
    signature: { name: string; email: string };
  },
): Promise<string> {
  const person = {
    name: input.signature.name,
    email: input.signature.email,
    timestamp: Math.floor(Date.now() / 1000),
    timezoneOffset: 0,
  };
  const scratch = await writeCommitObject(repo, {
    tree: input.outcome.tree,
    parent: [],
    author: person,
    committer: person,
    message: "scratch\n",
  });
  const { tree } = await writeCommitFromFiles(repo, {
    parent: scratch,
    files: input.files,
    message: "scratch",
    author: input.signature,
  });
  return writeCommitObject(repo, {
    tree,
    parent: [input.head, input.tip],
    author: person,
    committer: person,
    message: input.message,
  });
}
