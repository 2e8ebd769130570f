import type { Tx } from "@/server/db";
import type { BranchMoveHook } from "@/server/git";
import { settleRound } from "./settle";
import { cancelRunsWhere } from "./store";

// The unfinished runs of the project's changes from the moved workspace that evaluated another tip
// (not the merge queue's: they test a batch, which a workspace moving on past its queued commit keeps).
const MOVED_AWAY = {
  from: `FROM "Change" AS c JOIN "Workspace" AS w ON w.id = c."workspaceId"`,
  where: `r."batchId" IS NULL AND r."changeId" = c.id AND c."projectId" = $3::uuid AND w.name = $4 AND c."tipSha" IS DISTINCT FROM $5`,
};

/**
 * A workspace that moves away from what its change's runs test cancels them (in the move's
 * transaction); their rounds settle once it commits.
 */
export const cancelRunsOnWorkspaceMove: BranchMoveHook = {
  name: "cancel-eval-runs",
  async inTransaction(tx: Tx, move) {
    if (move.workspace === null) return;
    const rows = await cancelRunsWhere(tx, { ...MOVED_AWAY, params: [move.project.id, move.workspace, move.to] });
    pendingSettles.set(move, [...new Set(rows.map((row) => row.changeId))]);
  },
  async afterCommit(move) {
    const changes = pendingSettles.get(move) ?? [];
    pendingSettles.delete(move);
    for (const changeId of changes) await settleRound(changeId);
  },
};

// What a move's transaction cancelled, for its after-commit part (a rolled-back move leaves an entry
// the WeakMap lets go with the move).
const pendingSettles = new WeakMap<object, string[]>();
