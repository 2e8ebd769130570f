import type { BranchMove, BranchMoveHook } from "@/server/git";
import { enqueueDeployments } from "./queue";
import { requestDeployments } from "./request";

const BRANCH_PREFIX = "refs/heads/";

const deploysFrom = (move: BranchMove) =>
  move.workspace === null && move.to !== null && move.ref.startsWith(BRANCH_PREFIX);

/**
 * Every move of a project branch (merge, batch, queue, revert, resolution, push, sync) requests the
 * policy's deployments of that branch in the move's transaction (carrying the change that landed
 * last), and hands them to the deploy queue once it commits.
 */
export const requestDeploymentsOnMove: BranchMoveHook = {
  name: "deployments.request",
  async inTransaction(tx, move) {
    if (!deploysFrom(move)) return;
    await requestDeployments(tx, { project: move.project, branch: move.ref.slice(BRANCH_PREFIX.length), commit: move.to!, changeId: move.changeIds.at(-1) ?? null, actor: move.actor });
  },
  async afterCommit(move) {
    if (deploysFrom(move)) await enqueueDeployments({ projectId: move.project.id });
  },
};
