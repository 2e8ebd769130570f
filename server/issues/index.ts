// The area's front door: other areas import from here, never from inside the area.
export { closeIssuesLinkedToChange } from "./service";
export { issueMetrics } from "./metrics";
export { closeLinkedIssuesOnMove } from "./move-hook";
