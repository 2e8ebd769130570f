import type { Change } from "@/server/generated/prisma/client";
import { writeCommitObject, type Repo, type Signature } from "@/server/git";

export type MergeStrategy = "merge" | "squash";

/**
 * Writes the commit that lands a change: a merge commit (parents: head, tip) or a squash commit
 * (parent: head) of the merged tree. In-process, no spawn.
 */
export function writeLandingCommit(
  repo: Repo,
  input: { tree: string; head: string; change: Pick<Change, "id" | "title" | "tipSha">; workspace: string | null; strategy: MergeStrategy; signature: Signature },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const person = { name: input.signature.name, email: input.signature.email, timestamp: input.signature.timestamp ?? now, timezoneOffset: 0 };
  const from = input.workspace ? ` from workspace ${input.workspace}` : "";
  const title = input.change.title || `Change ${input.change.id}`;
  const message =
    input.strategy === "squash"
      ? `${title}\n\nSquashed change ${input.change.id}${from}.\n`
      : `Merge change ${input.change.id}${from}\n\n${title}\n`;
  return writeCommitObject(repo, {
    tree: input.tree,
    parent: input.strategy === "squash" ? [input.head] : [input.head, input.change.tipSha],
    author: person,
    committer: person,
    message,
  });
}
