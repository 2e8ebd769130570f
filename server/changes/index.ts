// The area's front door: other areas import from here, never from inside the area.
export { changeListFilter } from "./schemas";
export { listChanges } from "./service";
export { pageOfChanges } from "./list-page";
export { changeMetrics } from "./metrics";
export { HOST_VERDICT_EVENT, publishHostVerdict } from "./host-pr";
export {
  projectHasPromotedChange,
  promotedChangesMovedBy,
  pushPromotedTip,
  reevaluatePromotedChange,
} from "./promoted-follow";
export { processQueue } from "./queue/process";
export { queuesSettled, startQueueRunner, wakeQueue } from "./queue/runner";
export { wakeQueueOnMove } from "./queue/move-hook";
export { changePatch } from "./change-diff";
export { changeEventsResponse } from "./stream";
export { patchHunks } from "./diff/hunks";
export { evalRunLogResponse } from "./runs/log-endpoint";
export { runnersSettled, startRunnerPool, sweepRuns, wakeRunners } from "./runs/pool";
export { cancelRunsOnWorkspaceMove } from "./runs/move-hook";
export { removeProjectRunLogs } from "./runs/log";
