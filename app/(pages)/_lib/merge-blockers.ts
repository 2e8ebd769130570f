import type { PageCaller } from "@/server/api";

type ChangeRead = Awaited<ReturnType<PageCaller["changes"]["get"]>>;
type Review = Awaited<ReturnType<PageCaller["reviews"]["list"]>>["reviews"][number];

/** The states a merge starts from (the spec's lifecycle). */
const MERGEABLE = ["approved", "accepted", "promoted"];

/**
 * What is known, on loading the change page, to stand in the merge's way: its status, its
 * evaluation, changes requested, and a base the default branch has moved past. The merge itself
 * decides (branch protection, approvals the policy asks for, conflicts), and its refusal is shown
 * after the click; this list is what a person can see before it.
 */
export function mergeBlockers(input: { change: ChangeRead["change"]; evaluation: ChangeRead["eval"]; reviews: Review[]; defaultHead?: string }): string[] {
  const { change, evaluation, reviews, defaultHead } = input;
  const blockers: string[] = [];
  if (!MERGEABLE.includes(change.status)) blockers.push(`The change is ${change.status.replace("_", " ")}: it merges once accepted or approved.`);
  if (!evaluation) blockers.push("It has not been evaluated yet.");
  else if (evaluation.verdict === "failed") blockers.push(`Its evaluation failed: ${evaluation.summary}`);
  for (const review of reviews) {
    if (review.verdict === "request_changes" && !review.dismissed) blockers.push(`${review.reviewer.username ?? "A reviewer"} requested changes.`);
  }
  if (defaultHead && defaultHead !== change.baseSha) blockers.push("The default branch has moved since this change's base: the merge needs a fresh base.");
  return blockers;
}
