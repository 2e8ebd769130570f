import type { Change } from "@/server/generated/prisma/client";
import { writeCommitObject, type Repo, type Signature } from "@/server/git";

/** How a change lands: a merge commit (parents: head, tip) or a squash commit (parent: head). */
export const MERGE_STRATEGIES = ["merge", "squash"] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

const person = (signature: Signature) => ({
  name: signature.name,
  email: signature.email,
  timestamp: signature.timestamp ?? Math.floor(Date.now() / 1000),
  timezoneOffset: 0,
});

/**
 * Writes the commit that lands a change: a merge commit (parents: head, tip) or a squash commit
 * (parent: head) of the merged tree. In-process, no spawn.
 */
export function writeLandingCommit(
  repo: Repo,
  input: { tree: string; head: string; change: Pick<Change, "id" | "title" | "tipSha">; workspace: string | null; strategy: MergeStrategy; signature: Signature },
): Promise<string> {
  const from = input.workspace ? ` from workspace ${input.workspace}` : "";
  const title = input.change.title || `Change ${input.change.id}`;
  const message =
    input.strategy === "squash"
      ? `${title}\n\nSquashed change ${input.change.id}${from}.\n`
      : `Merge change ${input.change.id}${from}\n\n${title}\n`;
  const who = person(input.signature);
  return writeCommitObject(repo, {
    tree: input.tree,
    parent: input.strategy === "squash" ? [input.head] : [input.head, input.change.tipSha],
    author: who,
    committer: who,
    message,
  });
}

/** Writes the commit that reverts a merged change on top of head; a `Reverts-Change` trailer names the change. */
export function writeRevertCommit(
  repo: Repo,
  input: { tree: string; head: string; change: Pick<Change, "id" | "title">; merged: string; signature: Signature },
): Promise<string> {
  const { id, title } = input.change;
  const who = person(input.signature);
  return writeCommitObject(repo, {
    tree: input.tree,
    parent: [input.head],
    author: who,
    committer: who,
    message: `Revert ${title || `change ${id}`}\n\nThis reverts what merge ${input.merged} brought in.\n\nReverts-Change: ${id}\n`,
  });
}
