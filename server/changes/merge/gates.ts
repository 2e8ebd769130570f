import type { Change, Project } from "@/server/generated/prisma/client";
import { hasObject, type Repo } from "@/server/git";
import { type DomainError, conflict, forbidden, invalid } from "@/server/errors";
import { policyBlockers } from "@/server/evaluators";
import type { PolicyResult } from "@/server/policy";
import type { ReviewState } from "@/server/changes/reviews/rules";
import { workspaceTip } from "../evaluation";

/** Statuses a change merges from without force. */
const MERGEABLE = new Set(["accepted", "approved", "promoted"]);

export interface GateInput {
  project: Project;
  change: Change;
  workspace: string | null;
  repo: Repo;
  head: string;
  policy: PolicyResult;
  reviews: ReviewState;
  evaluationPassed: boolean;
  force: boolean;
}

/**
 * The change as the queue's gates see it: one still being evaluated (`open`: only its background
 * runs are left, the fast evaluators passed) is taken as accepted, to be tested with its batch while
 * its own runs go. It lands only once they passed (the queue waits for them).
 */
export const asEvaluated = (change: Change): Change =>
  change.status === "open" ? { ...change, status: "accepted" } : change;

/** What blocks any landing on the default branch, whatever the change: policy problems and a lock. */
export function hardProtectionReasons(policy: PolicyResult): string[] {
  const reasons = policyBlockers(policy);
  if (policy.ok && policy.policy.protection.locked) reasons.push("The default branch is locked (protection.locked)");
  return reasons;
}

/**
 * Branch protection and approvals. Policy problems (invalid file, evaluators without a binding, a
 * locked branch, force without merge.allowForce) block always; the change's own state (status,
 * evaluation, approvals) blocks unless force is allowed and asked for.
 */
export function protectionReasons(input: GateInput): string[] {
  const hard = hardProtectionReasons(input.policy);
  if (!input.policy.ok) return hard;
  const policy = input.policy.policy;
  if (input.force && !policy.merge.allowForce) hard.push("force needs merge.allowForce: true in the project policy");
  // Not even force merges what is still being evaluated: its runs' verdict is not known yet.
  if (input.change.status === "open")
    hard.push("Evaluation is in progress: the change's evaluators have not all finished");
  if (input.force && policy.merge.allowForce) return hard;
  const soft: string[] = [];
  if (!MERGEABLE.has(input.change.status) && input.change.status !== "open")
    soft.push(`The change is ${input.change.status}, not accepted or approved`);
  if (!input.evaluationPassed && input.change.status !== "open") soft.push("The change's evaluation failed");
  if (input.reviews.changesRequested) soft.push("A reviewer requested changes");
  if (input.reviews.countableApprovals < policy.requiredApprovals) {
    soft.push(
      `${input.reviews.countableApprovals} of ${policy.requiredApprovals} required approvals (the author's own approval does not count)`,
    );
  }
  return [...hard, ...soft];
}

/**
 * The merge gates in order: state, protection and approvals, STALE_BASE, STALE_WORKSPACE,
 * WORKSPACE_UNVERIFIABLE. Yields each failure, lazily: a merge stops at the first, the change
 * page's merge box lists them all.
 */
async function* gateFailures(input: GateInput): AsyncGenerator<DomainError> {
  const { change } = input;
  if (change.status === "merged" || change.status === "rejected") {
    yield invalid(`The change is already ${change.status}`);
    return;
  }
  if (input.project.deletingAt) yield conflict("The project is being deleted", "TARGET_DELETING");
  const reasons = protectionReasons(input);
  if (reasons.length > 0) yield forbidden("Merge blocked by branch protection", "PROTECTION_BLOCKED", { reasons });
  const requireFreshBase = input.policy.ok && input.policy.policy.merge.requireFreshBase;
  if (requireFreshBase && change.baseSha !== input.head) {
    yield conflict("The default branch moved since the change was evaluated; re-evaluate it", "STALE_BASE", {
      baseSha: change.baseSha,
      currentHead: input.head,
    });
  }
  const tip = input.workspace ? workspaceTip(input.project, input.workspace) : null;
  if (tip && tip !== change.tipSha) {
    yield conflict("The workspace advanced after the change was evaluated; re-evaluate it", "STALE_WORKSPACE", {
      evaluatedSha: change.tipSha,
      currentTip: tip,
    });
  } else if (!tip || !(await hasObject(input.repo, change.tipSha))) {
    yield conflict("The workspace could not be verified against what was evaluated", "WORKSPACE_UNVERIFIABLE", {
      evaluatedSha: change.tipSha,
      message: tip
        ? "The evaluated commit is missing from the project repository"
        : "The workspace's repository or branch cannot be read",
    });
  }
}

/** The first gate failure (the caller throws it or records it as a merge-batch skip reason), or null when the change may merge. */
export async function firstGateFailure(input: GateInput): Promise<DomainError | null> {
  for await (const failure of gateFailures(input)) return failure;
  return null;
}

/** Every gate a merge without force would fail now, each reason as a sentence (protection's one by one). */
export async function gateBlockers(input: GateInput): Promise<string[]> {
  const blockers: string[] = [];
  for await (const failure of gateFailures(input)) {
    const reasons = failure.code === "PROTECTION_BLOCKED" ? (failure.extra.reasons as string[]) : [failure.message];
    blockers.push(...reasons);
  }
  return blockers;
}

/** How a gate failure reads in a merge-batch `skipped` entry. */
export function skipReason(error: DomainError): string {
  const reasons = Array.isArray(error.extra.reasons) ? `: ${(error.extra.reasons as string[]).join("; ")}` : "";
  return error.code ? `${error.code}: ${error.message}${reasons}` : error.message;
}
