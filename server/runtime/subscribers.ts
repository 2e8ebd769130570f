import { wakeQueueOnMove } from "@/server/changes";
import { requestDeploymentsOnMove } from "@/server/deployments";
import { onBranchMove } from "@/server/git";
import { closeLinkedIssuesOnMove } from "@/server/issues";

/**
 * Subscribes the areas that act on branch moves to the one door (`moveBranch`), in the order their
 * hooks run. Every entry point calls it before it serves: the server's start-up (the registry is on
 * globalThis, so every Next.js module copy of the process sees it) and the test harness. A new
 * subscriber is one line here.
 */
export function registerBranchMoveSubscribers(): void {
  onBranchMove(requestDeploymentsOnMove);
  onBranchMove(closeLinkedIssuesOnMove);
  onBranchMove(wakeQueueOnMove);
}
