// The area's front door: other areas import from here, never from inside the area.
export { abandonDeployment, runDeployment, startDeployment } from "./lifecycle";
export { DEPLOYMENT_REQUESTED_EVENT, enqueueDeployments } from "./queue";
export { requestDeployments, type BranchMove } from "./request";
export { deploymentMetrics } from "./metrics";
export { requestDeploymentsOnMove } from "./move-hook";
