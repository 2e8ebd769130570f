import type { Identity } from "@/server/auth";
import { diffCommits, sinceFork, unifiedDiffStream, type DiffOptions } from "@/server/code";
import { openProjectRepo } from "@/server/git";
import { loadChangeCommits, type ChangeCommits } from "./load";

/** What a change's diff is a function of (with the URL's options): the change and its two commits, which git objects never change under. */
const diffVersion = (change: ChangeCommits) => [change.id, change.baseSha, change.tipSha];

/** The version of a change's diff, for the REST pipeline's 304 before dispatch (the caller's access checked). */
export async function changeDiffVersion(identity: Identity, id: string): Promise<string[]> {
  return diffVersion((await loadChangeCommits(identity, id)).change);
}

/**
 * A change's diff (what its tip changes since it forked from its base), a page of files, for readers
 * of its project; `setVersion` gets the parts `changeDiffVersion` reads.
 */
export async function changeDiff(
  identity: Identity,
  id: string,
  options: DiffOptions,
  setVersion?: (...parts: string[]) => void,
) {
  const { change, project } = await loadChangeCommits(identity, id);
  setVersion?.(...diffVersion(change));
  const diff = await diffCommits(openProjectRepo(project.id), sinceFork(change.baseSha, change.tipSha), options);
  return { changeId: change.id, baseSha: change.baseSha, tipSha: change.tipSha, ...diff };
}

/** The same diff whole, as `git diff` prints it (text/x-diff, for `git apply`), streamed. */
export async function changePatch(identity: Identity, id: string): Promise<ReadableStream<Uint8Array>> {
  const { change, project } = await loadChangeCommits(identity, id);
  return unifiedDiffStream(openProjectRepo(project.id), sinceFork(change.baseSha, change.tipSha));
}
