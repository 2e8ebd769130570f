import { db } from "@/server/db";
import type { BranchMoveHook } from "@/server/git";
import { wakeQueue } from "./runner";

/**
 * A default branch moved by anything but the queue itself (a direct merge, a push that unlocks the
 * branch or changes the policy, a sync): the queue's projected base changed, so it gets a turn now
 * rather than at the next sweep. The queue's own landings are followed by its own next round.
 */
export const wakeQueueOnMove: BranchMoveHook = {
  name: "queue.wake",
  async afterCommit(move) {
    if (move.workspace !== null || move.cause === "queue" || move.ref !== `refs/heads/${move.project.defaultBranch}`)
      return;
    // Most projects queue nothing: one indexed read spares them a turn here and a wake-up on every instance.
    if (await (await db()).queueEntry.findFirst({ where: { projectId: move.project.id }, select: { id: true } }))
      wakeQueue(move.project.id);
  },
};
