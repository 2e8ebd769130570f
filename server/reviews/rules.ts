import type { Change } from "@/server/generated/prisma/client";
import type { DbOrTx } from "@/server/db/client";
import type { ChangeStatus } from "@/server/changes/views";

export const REVIEWABLE: readonly ChangeStatus[] = ["open", "needs_changes", "accepted", "approved"];

export interface ReviewState {
  /** Live approvals that count toward requiredApprovals (never the change author's own, rule 3). */
  countableApprovals: number;
  approvals: number;
  changesRequested: boolean;
}

/** Live (not dismissed) verdicts of a change, counted by the review rules. */
export async function reviewState(client: DbOrTx, change: Pick<Change, "id" | "authorId">): Promise<ReviewState> {
  const live = await client.review.findMany({
    where: { changeId: change.id, dismissedAt: null, verdict: { in: ["approve", "request_changes"] } },
    select: { reviewerId: true, verdict: true },
  });
  const approvals = live.filter((r) => r.verdict === "approve");
  return {
    approvals: approvals.length,
    countableApprovals: approvals.filter((r) => r.reviewerId !== change.authorId).length,
    changesRequested: live.some((r) => r.verdict === "request_changes"),
  };
}

/** A change's status after an evaluation round, given its live verdicts. */
export function statusAfterEvaluation(verdict: "passed" | "failed", state: ReviewState): ChangeStatus {
  if (verdict === "failed" || state.changesRequested) return "needs_changes";
  return state.approvals > 0 ? "approved" : "accepted";
}
