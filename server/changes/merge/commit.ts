import type { Change } from "@/server/generated/prisma/client";
import { db } from "@/server/db";
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

type Landed = Pick<Change, "id" | "number" | "title" | "authorId" | "agentId">;

/** Who opened a change, as a commit names them: "alice", or "alice/fixer" for alice's agent fixer. */
async function openedBy(change: Landed): Promise<string | null> {
  const prisma = await db();
  if (change.agentId) {
    const agent = await prisma.agent.findUnique({
      where: { id: change.agentId },
      select: { name: true, owner: { select: { username: true } } },
    });
    return agent ? `${agent.owner.username}/${agent.name}` : null;
  }
  if (!change.authorId) return null;
  return (
    (await prisma.user.findUnique({ where: { id: change.authorId }, select: { username: true } }))?.username ?? null
  );
}

/**
 * The message of a commit that lands a change, in words: a merge says "Merge change !12 'Add
 * retries' (alice/fixer)", a squash keeps the title as its subject with the number ("Add retries
 * (!12)", GitLab's reference to a merge request: #12 is an issue here); the body names the change, who opened it and its workspace, then `note`
 * if any, and ends with a `Change-Id` trailer.
 */
export async function landingMessage(
  change: Landed,
  workspace: string | null,
  verb: "Merged" | "Squashed",
  note?: string,
): Promise<string> {
  const by = await openedBy(change);
  const named = `change !${change.number}${change.title ? ` '${change.title}'` : ""}`;
  const subject =
    verb === "Squashed" ? `${change.title || "Change"} (!${change.number})` : `Merge ${named}${by ? ` (${by})` : ""}`;
  const from = workspace ? ` from workspace ${workspace}` : "";
  const body = `${verb} ${named}${by ? ` by ${by}` : ""}${from}.`;
  return `${subject}\n\n${body}\n${note ? `\n${note}\n` : ""}\nChange-Id: ${change.id}\n`;
}

/**
 * Writes the commit that lands a change: a merge commit (parents: head, tip) or a squash commit
 * (parent: head) of the merged tree. In-process, no spawn.
 */
export async function writeLandingCommit(
  repo: Repo,
  input: {
    tree: string;
    head: string;
    change: Landed & Pick<Change, "tipSha">;
    workspace: string | null;
    strategy: MergeStrategy;
    signature: Signature;
  },
): Promise<string> {
  const message = await landingMessage(
    input.change,
    input.workspace,
    input.strategy === "squash" ? "Squashed" : "Merged",
  );
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
