import type { ChangeComment } from "@/server/generated/prisma/client";
import { actingAgentId, actingUserId, actorOf, type Identity } from "@/server/auth";
import { db, type Tx } from "@/server/db";
import { recordEvent } from "@/server/events";
import { invalid, forbidden, notFound } from "@/server/errors";
import { assertWorkspaceScope, atLeast } from "@/server/projects";
import { loadChange, isUuid } from "@/server/changes/load";

export interface CommentInput {
  body: string;
  file?: string;
  line?: number;
  side?: "old" | "new";
  commitSha?: string;
  parentCommentId?: string;
}

export function commentView(comment: ChangeComment, usernames: Map<string, string>) {
  return {
    id: comment.id,
    changeId: comment.changeId,
    body: comment.body,
    file: comment.file,
    line: comment.line,
    side: comment.side as "old" | "new" | null,
    commitSha: comment.commitSha,
    parentCommentId: comment.parentId,
    author: comment.authorId ? { id: comment.authorId, username: usernames.get(comment.authorId) ?? null } : null,
    agentId: comment.agentId,
    resolved: comment.resolvedAt !== null,
    resolvedAt: comment.resolvedAt?.toISOString() ?? null,
    resolvedById: comment.resolvedById,
    createdAt: comment.createdAt.toISOString(),
  };
}

async function usernamesOf(comments: ChangeComment[]): Promise<Map<string, string>> {
  const ids = [...new Set(comments.flatMap((c) => (c.authorId ? [c.authorId] : [])))];
  if (ids.length === 0) return new Map();
  const users = await (await db()).user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true } });
  return new Map(users.map((u) => [u.id, u.username]));
}

/** Anchor rules: file and line together; side and commitSha only with an anchor; replies carry none. */
function validateAnchor(input: CommentInput): void {
  const anchored = input.file !== undefined || input.line !== undefined;
  if (anchored && (input.file === undefined || input.line === undefined))
    throw invalid("file and line must be given together");
  if (!anchored && (input.side !== undefined || input.commitSha !== undefined))
    throw invalid("side and commitSha are only allowed with a file and line anchor");
  if (input.parentCommentId !== undefined && anchored)
    throw invalid("A reply cannot carry an anchor; it belongs to its thread");
}

/**
 * Writes a comment into a change's discussion and emits change.commented, in `tx`. Also the
 * discussion entry of a `comment` review verdict.
 */
export async function writeComment(
  tx: Tx,
  identity: Identity,
  change: { id: string; projectId: string },
  input: CommentInput,
  via: "comment" | "review" = "comment",
) {
  let parentId: string | null = null;
  if (input.parentCommentId !== undefined) {
    const parent = isUuid(input.parentCommentId)
      ? await tx.changeComment.findUnique({ where: { id: input.parentCommentId } })
      : null;
    if (!parent || parent.changeId !== change.id) throw invalid("parentCommentId must be a comment of this change");
    // Threads are one level deep: a reply to a reply joins its root.
    parentId = parent.parentId ?? parent.id;
  }
  const comment = await tx.changeComment.create({
    data: {
      changeId: change.id,
      authorId: actingUserId(identity) ?? null,
      agentId: actingAgentId(identity),
      body: input.body,
      file: input.file ?? null,
      line: input.line ?? null,
      side: input.side ?? null,
      commitSha: input.commitSha ?? null,
      parentId,
    },
  });
  await recordEvent(tx, {
    projectId: change.projectId,
    kind: "change.commented",
    actor: actorOf(identity),
    data: { changeId: change.id, commentId: comment.id, parentCommentId: parentId, via },
  });
  return comment;
}

/** Comments on a change: read access is enough; users and agents may comment. */
export async function createComment(identity: Identity, changeId: string, input: CommentInput) {
  validateAnchor(input);
  const { change } = await loadChange(identity, changeId, "read");
  assertWorkspaceScope(identity, { id: change.workspaceId });
  const comment = await (await db()).$transaction((tx) => writeComment(tx, identity, change, input));
  return commentView(comment, await usernamesOf([comment]));
}

export async function listComments(identity: Identity, changeId: string) {
  await loadChange(identity, changeId, "read");
  const comments = await (
    await db()
  ).changeComment.findMany({ where: { changeId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const usernames = await usernamesOf(comments);
  return comments.map((c) => commentView(c, usernames));
}

const isAuthor = (identity: Identity, comment: ChangeComment) =>
  identity.kind === "agent"
    ? comment.agentId === identity.agentId
    : identity.kind === "user" && comment.agentId === null && comment.authorId === identity.userId;

/** Resolves or reopens a thread root: project writers or the comment's author. Never gates a merge. */
export async function setResolved(identity: Identity, changeId: string, commentId: string, resolved: boolean) {
  const { role } = await loadChange(identity, changeId, "read");
  const prisma = await db();
  const comment = isUuid(commentId) ? await prisma.changeComment.findUnique({ where: { id: commentId } }) : null;
  if (!comment || comment.changeId !== changeId) throw notFound();
  if (!atLeast(role, "write") && !isAuthor(identity, comment))
    throw forbidden("Only project writers or the comment's author can resolve a thread");
  if (comment.parentId) throw invalid("Only a thread root can be resolved; this comment is a reply");
  const updated = await prisma.changeComment.update({
    where: { id: commentId },
    data: resolved
      ? {
          resolvedAt: comment.resolvedAt ?? new Date(),
          resolvedById: comment.resolvedById ?? actingUserId(identity) ?? null,
        }
      : { resolvedAt: null, resolvedById: null },
  });
  return commentView(updated, await usernamesOf([updated]));
}
