import type { Change } from "@/server/generated/prisma/client";
import type { DbOrTx } from "@/server/db";
import type { ChangeStatus } from "@/server/changes/views";

export const REVIEWABLE: readonly ChangeStatus[] = ["open", "needs_changes", "accepted", "approved"];

export interface ReviewState {
  /** Live approvals that count toward requiredApprovals (never the change author's own, rule 3). */
  countableApprovals: number;
  approvals: number;
  changesRequested: boolean;
}

/** A live (not dismissed) approve or request_changes verdict. */
export type LiveVerdict = { changeId: string; reviewerId: string; verdict: string };

/** A change's live verdicts as one JSON array (`LiveVerdict[]`), for a read that takes them with other rows. `changeId`: a SQL expression. */
export const liveVerdictsSql = (changeId: string) => `(
  SELECT coalesce(jsonb_agg(jsonb_build_object('changeId', r."changeId", 'reviewerId', r."reviewerId", 'verdict', r.verdict)), '[]'::jsonb)
    FROM "Review" AS r WHERE r."changeId" = ${changeId} AND r."dismissedAt" IS NULL AND r.verdict IN ('approve', 'request_changes'))`;

/** The review state of a change from its live verdicts, counted by the review rules. */
export function reviewStateOf(change: Pick<Change, "id" | "authorId">, live: LiveVerdict[]): ReviewState {
  const mine = live.filter((r) => r.changeId === change.id);
  const approvals = mine.filter((r) => r.verdict === "approve");
  return {
    approvals: approvals.length,
    countableApprovals: approvals.filter((r) => r.reviewerId !== change.authorId).length,
    changesRequested: mine.some((r) => r.verdict === "request_changes"),
  };
}

/** Live (not dismissed) verdicts of changes, counted by the review rules: one query for any number. */
export async function reviewStates(
  client: DbOrTx,
  changes: Array<Pick<Change, "id" | "authorId">>,
): Promise<Map<string, ReviewState>> {
  const live = await client.review.findMany({
    where: {
      changeId: { in: changes.map((c) => c.id) },
      dismissedAt: null,
      verdict: { in: ["approve", "request_changes"] },
    },
    select: { changeId: true, reviewerId: true, verdict: true },
  });
  return new Map(changes.map((change) => [change.id, reviewStateOf(change, live)]));
}

export async function reviewState(client: DbOrTx, change: Pick<Change, "id" | "authorId">): Promise<ReviewState> {
  return (await reviewStates(client, [change])).get(change.id)!;
}

/** A change's status after an evaluation round, given its live verdicts. */
export function statusAfterEvaluation(verdict: "passed" | "failed", state: ReviewState): ChangeStatus {
  if (verdict === "failed" || state.changesRequested) return "needs_changes";
  return state.approvals > 0 ? "approved" : "accepted";
}
