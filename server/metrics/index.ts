// The area's front door: other areas import from here, never from inside the area.
export { countGitRequest, instrumentRequest } from "./observe";
export type { RoutePatternOf } from "./observe";
export { exposition, metricsAsJson } from "./scrape";
