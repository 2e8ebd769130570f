import { cancelRunsOnWorkspaceMove, projectHasPromotedChange, wakeQueueOnMove } from "@/server/changes";
import { requestDeploymentsOnMove } from "@/server/deployments";
import { onBranchMove } from "@/server/git";
import { closeLinkedIssuesOnMove } from "@/server/issues";
import { onProjectInterest } from "@/server/events";
import { revokeKeysOnMove } from "@/server/workspaces";
import { projectHasActiveWebhook } from "@/server/webhooks";

/**
 * Subscribes the areas that act on branch moves to the one door (`moveBranch`), in the order their
 * hooks run, and tells the events area which projects' events the webhooks and the promoted changes
 * act on. Every entry point calls it before it serves: the server's start-up (the registries are on
 * globalThis, so every Next.js module copy of the process sees them) and the test harness. A new
 * subscriber is one line here.
 */
export function registerSubscribers(): void {
  onBranchMove(requestDeploymentsOnMove);
  onBranchMove(closeLinkedIssuesOnMove);
  onBranchMove(wakeQueueOnMove);
  onBranchMove(revokeKeysOnMove);
  onBranchMove(cancelRunsOnWorkspaceMove);
  onProjectInterest("webhooks", projectHasActiveWebhook);
  onProjectInterest("promotedChanges", projectHasPromotedChange);
}
