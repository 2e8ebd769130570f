import type { BranchMoveHook } from "@/server/git";
import { closeIssuesLinkedToChange } from "./service";

/** A move that lands changes on a project's branch closes the open issues linked to them, in the move's transaction. */
export const closeLinkedIssuesOnMove: BranchMoveHook = {
  name: "issues.close-linked",
  async inTransaction(tx, move) {
    if (move.workspace !== null || move.cause === "revert" || move.changeIds.length === 0) return;
    const linked = await tx.issue.findMany({
      where: { projectId: move.project.id, linkedChangeId: { in: move.changeIds }, status: "open" },
      select: { linkedChangeId: true },
      distinct: ["linkedChangeId"],
    });
    for (const { linkedChangeId } of linked)
      await closeIssuesLinkedToChange(tx, { projectId: move.project.id, changeId: linkedChangeId! });
  },
};
