import type { Identity } from "@/server/auth";
import { diffCommits, sinceFork, unifiedDiffStream, type DiffOptions } from "@/server/code";
import { openProjectRepo } from "@/server/git";
import { loadChange } from "./load";

/** A change's diff (what its tip changes since it forked from its base), a page of files, for readers of its project. */
export async function changeDiff(identity: Identity, id: string, options: DiffOptions) {
  const { change, project } = await loadChange(identity, id, "read", { cachedRow: true });
  const diff = await diffCommits(openProjectRepo(project.id), sinceFork(change.baseSha, change.tipSha), options);
  return { changeId: change.id, baseSha: change.baseSha, tipSha: change.tipSha, ...diff };
}

/** The same diff whole, as `git diff` prints it (text/x-diff, for `git apply`), streamed. */
export async function changePatch(identity: Identity, id: string): Promise<ReadableStream<Uint8Array>> {
  const { change, project } = await loadChange(identity, id, "read", { cachedRow: true });
  return unifiedDiffStream(openProjectRepo(project.id), sinceFork(change.baseSha, change.tipSha));
}
