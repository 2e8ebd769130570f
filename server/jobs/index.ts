// The area's front door: other areas import from here, never from inside the area.
export { inngest } from "./client";
export { startEmbeddedExecutor } from "./embedded";
export { queueHealth } from "./health";
export { inngestConfigured, wakeLocalExecutors as wakeExecutors } from "./mode";
export { storedEventsSql } from "./event-store";
export { serveFunctions } from "./serve";
export { jobMetrics } from "./metrics";
export { hasLiveRun } from "./live";
export { pruneJobRows } from "./prune";
