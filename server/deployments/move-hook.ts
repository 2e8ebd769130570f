import type { BranchMove, BranchMoveHook } from "@/server/git";
import { enqueueDeployments } from "./queue";
import { requestDeployments } from "./request";

const BRANCH_PREFIX = "refs/heads/";

// A project's first commit ("init") is its creation, not a release: deployments start with the first move after it.
const deploysFrom = (move: BranchMove) =>
  move.workspace === null && move.to !== null && move.cause !== "init" && move.ref.startsWith(BRANCH_PREFIX);

/**
 * Every move of a project branch to a commit (merge, batch, queue, revert, resolution, push, sync,
 * a branch created over the API) requests the policy's deployments of that branch in the move's
 * transaction (carrying the change that landed last), and hands them to the deploy queue once it commits.
 */
export const requestDeploymentsOnMove: BranchMoveHook = {
  name: "deployments.request",
  async inTransaction(tx, move) {
    if (!deploysFrom(move)) return;
    await requestDeployments(tx, {
      project: move.project,
      branch: move.ref.slice(BRANCH_PREFIX.length),
      commit: move.to!,
      changeId: move.changeIds.at(-1) ?? null,
      actor: move.actor,
    });
  },
  async afterCommit(move) {
    if (deploysFrom(move)) await enqueueDeployments({ projectId: move.project.id });
  },
};
