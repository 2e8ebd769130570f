import type { Tx } from "@/server/db";
import { recordEvent } from "@/server/events";
import { branchRef, openProjectRepo, readRef } from "@/server/git";
import { loadPolicy, type DeployEntry } from "@/server/policy";
import { deploymentEventData } from "./view";

export interface BranchMove {
  project: { id: string; defaultBranch: string };
  /** The branch that moved (a name, not a ref). */
  branch: string;
  /** Its new tip. */
  commit: string;
  /** The change whose merge (or revert) moved it, if any. */
  changeId?: string | null;
  /** Who moved it (`actorOf()`). */
  actor: string;
}

/** The entries of the policy in force that deploy `branch`; none when the policy is invalid. */
export async function entriesFor(
  project: BranchMove["project"],
  branch: string,
  defaultTip: string | null,
): Promise<DeployEntry[]> {
  if (!defaultTip) return [];
  const policy = await loadPolicy(openProjectRepo(project.id), defaultTip);
  if (!policy.ok) return [];
  return policy.policy.deploys.filter((entry) => (entry.branch ?? project.defaultBranch) === branch);
}

/**
 * Call inside the transaction that moves a branch: one deployment per policy entry naming the
 * branch (attempt 1, `pending_approval` or `queued`) and `deployment.requested` for each, so they
 * exist exactly when the move does. The policy is the default branch's: at the new tip when the
 * default branch is the one moving. A commit already requested for an entry is not requested
 * again (the unique key skips it). After the transaction commits, call `enqueueDeployments`.
 */
export async function requestDeployments(tx: Tx, move: BranchMove): Promise<string[]> {
  const { project } = move;
  const defaultTip =
    move.branch === project.defaultBranch
      ? move.commit
      : readRef(openProjectRepo(project.id), branchRef(project.defaultBranch));
  const entries = await entriesFor(project, move.branch, defaultTip);
  if (entries.length === 0) return [];
  const created = await tx.deployment.createManyAndReturn({
    data: entries.map((entry) => ({
      projectId: project.id,
      name: entry.name,
      branch: move.branch,
      commit: move.commit,
      attempt: 1,
      status: entry.requireApproval ? ("pending_approval" as const) : ("queued" as const),
      changeId: move.changeId ?? null,
      requestedBy: move.actor,
    })),
    skipDuplicates: true,
  });
  for (const row of created) {
    await recordEvent(tx, {
      projectId: project.id,
      kind: "deployment.requested",
      actor: move.actor,
      data: deploymentEventData(row),
    });
  }
  return created.map((row) => row.id);
}
