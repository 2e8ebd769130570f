import { inngest } from "@/server/jobs";
import { DOMAIN_EVENT } from "@/server/events";
import {
  HOST_VERDICT_EVENT,
  promotedChangesMovedBy,
  pushPromotedTip,
  reevaluatePromotedChange,
} from "@/server/changes";

/**
 * When a workspace moves (a `push` event: the commit route or a git push), each promoted change of
 * that workspace is re-evaluated (it stays promoted), its new tip pushed to `svc/<changeId>` on the
 * source, and the verdict posted to the pull request by the host-verdict job. One step per stage,
 * so a provider failure retries the push without evaluating again. Runs of one workspace serialize.
 */
export const promotedChangeFollow = inngest.createFunction(
  {
    id: "promoted-change-follow",
    name: "Re-evaluate promoted changes whose workspace moved",
    // Pushes to a workspace of a project that has a promoted change (`!= false`: an event handed
    // over before the field existed still runs).
    triggers: [
      {
        event: DOMAIN_EVENT,
        if: "event.data.kind == 'push' && event.data.workspace != '' && event.data.promotedChanges != false",
      },
    ],
    retries: 4,
    // One workspace's pushes in order; other workspaces' promoted changes are not theirs to wait for.
    concurrency: { limit: 1, key: "event.data.projectId + ':' + event.data.workspace" },
  },
  async ({ event, step }) => {
    const changeIds = await step.run("find-promoted-changes", () => promotedChangesMovedBy(String(event.data.eventId)));
    for (const changeId of changeIds) {
      const outcome = await step.run(`reevaluate-${changeId}`, () => reevaluatePromotedChange(changeId));
      if (outcome === "skipped") continue;
      const { pushed } = await step.run(`push-tip-${changeId}`, () => pushPromotedTip(changeId));
      if (pushed) await step.sendEvent(`post-verdict-${changeId}`, { name: HOST_VERDICT_EVENT, data: { changeId } });
    }
    return { changes: changeIds.length };
  },
);
