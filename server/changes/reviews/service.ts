import type { Review } from "@/server/generated/prisma/client";
import { actorOf, type Identity, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import { recordEvent } from "@/server/events";
import { invalid } from "@/server/errors";
import { assertNotDeleting } from "@/server/projects";
import { autoQueue } from "../queue/service";
import { loadChange, lockChange } from "@/server/changes/load";
import type { ChangeStatus } from "@/server/changes/views";
import { writeComment } from "@/server/changes/comments/service";
import { REVIEWABLE } from "./rules";

export type Verdict = "approve" | "request_changes" | "comment";

export function reviewView(review: Review, usernames: Map<string, string>) {
  return {
    id: review.id,
    changeId: review.changeId,
    reviewer: { id: review.reviewerId, username: usernames.get(review.reviewerId) ?? null },
    verdict: review.verdict,
    comment: review.comment,
    baseSha: review.baseSha,
    dismissed: review.dismissedAt !== null,
    dismissedAt: review.dismissedAt?.toISOString() ?? null,
    createdAt: review.createdAt.toISOString(),
  };
}

const STATUS_AFTER: Record<Exclude<Verdict, "comment">, ChangeStatus> = {
  approve: "approved",
  request_changes: "needs_changes",
};

/**
 * Submits a verdict (users with write access; agents never reach here). approve and
 * request_changes replace the reviewer's live verdict and move the change; a comment verdict goes
 * to the discussion and records a verdict row only for a reviewer who has none (it never replaces
 * one, never counts, never blocks).
 */
export async function submitReview(
  identity: UserIdentity,
  changeId: string,
  input: { verdict: Verdict; comment?: string },
) {
  const { project } = await loadChange(identity, changeId, "write");
  assertNotDeleting(project);
  const text = input.comment?.trim() ? input.comment : undefined;
  if (input.verdict === "comment" && !text) throw invalid("A comment verdict needs a non-empty comment");
  const prisma = await db();
  const { review, status } = await prisma.$transaction(async (tx) => {
    const change = await lockChange(tx, changeId);
    if (!REVIEWABLE.includes(change.status)) throw invalid(`A ${change.status} change cannot be reviewed`);
    const live = await tx.review.findFirst({
      where: { changeId, reviewerId: identity.userId, dismissedAt: null },
      orderBy: { createdAt: "desc" },
    });
    const actor = actorOf(identity);
    if (input.verdict === "comment") {
      const comment = await writeComment(tx, identity, change, { body: text! }, "review");
      const review =
        live ??
        (await tx.review.create({
          data: { changeId, reviewerId: identity.userId, verdict: "comment", baseSha: change.baseSha },
        }));
      return { review: { ...review, verdict: "comment" as const, comment: comment.body }, status: change.status };
    }
    const data = { verdict: input.verdict, comment: text ?? null, baseSha: change.baseSha, createdAt: new Date() };
    const review = live
      ? await tx.review.update({ where: { id: live.id }, data })
      : await tx.review.create({ data: { changeId, reviewerId: identity.userId, ...data } });
    // An open change's background runs decide its status when they end (counting this verdict).
    const status = change.status === "open" ? "open" : STATUS_AFTER[input.verdict];
    await tx.change.update({ where: { id: changeId }, data: { status } });
    await recordEvent(tx, {
      projectId: change.projectId,
      kind: "change.reviewed",
      actor,
      data: { changeId, reviewId: review.id, verdict: input.verdict, status },
    });
    return { review, status };
  });
  if (status === "approved")
    await autoQueue(project, await prisma.change.findUniqueOrThrow({ where: { id: changeId } }));
  return { review: reviewView(review, new Map([[identity.userId, identity.username]])), changeStatus: status };
}

export async function listReviews(identity: Identity, changeId: string) {
  await loadChange(identity, changeId, "read");
  const prisma = await db();
  const reviews = await prisma.review.findMany({ where: { changeId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const users = await prisma.user.findMany({
    where: { id: { in: [...new Set(reviews.map((r) => r.reviewerId))] } },
    select: { id: true, username: true },
  });
  const usernames = new Map(users.map((u) => [u.id, u.username]));
  return reviews.map((r) => reviewView(r, usernames));
}
