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
 * The message of a commit that lands a change: the change's title as the subject (what a log shows
 * on one line), the change's id and its workspace in the body, then `note` if any.
 */
export function landingMessage(
  change: Pick<Change, "id" | "title">,
  workspace: string | null,
  verb: "Merged" | "Squashed",
  note?: string,
): string {
  const from = workspace ? ` from workspace ${workspace}` : "";
  return `${change.title || `Change ${change.id}`}\n\n${verb} change ${change.id}${from}.\n${note ? `\n${note}\n` : ""}`;
}

/**
 * Writes the commit that lands a change: a merge commit (parents: head, tip) or a squash commit
 * (parent: head) of the merged tree. In-process, no spawn.
 */
export function writeLandingCommit(
  repo: Repo,
  input: {
    tree: string;
    head: string;
    change: Pick<Change, "id" | "title" | "tipSha">;
    workspace: string | null;
    strategy: MergeStrategy;
    signature: Signature;
  },
): Promise<string> {
  const message = landingMessage(input.change, input.workspace, input.strategy === "squash" ? "Squashed" : "Merged");
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
