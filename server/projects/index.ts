// The area's front door: other areas import from here, never from inside the area.
export {
  assertNotDeleting,
  assertWorkspaceScope,
  atLeast,
  findProject,
  findProjectAlongside,
  projectGrants,
  projectPath,
  projectRole,
  requireProject,
} from "./access";
export type { ProjectAlongside } from "./access";
export type { Grant, ProjectRole } from "./access";
export { commitAuthorship, userSignature } from "./authorship";
export { resolveBranchName, resolveCommit } from "./commit-names";
export { assertFileMapWithinLimits } from "./file-map";
export { fileMapInput, projectParams } from "./schemas";
export { allocateProjectNumber, projectNumber } from "./numbers";
export { projectMetrics } from "./metrics";
export { grantedProjectIds, projectsOwnedBy } from "./readable";
export { projectRemote, workspaceRemote } from "./view";
export { assertNotImporting, createImportTarget, setImportPending } from "./imported";
export type { ImportTargetInput } from "./imported";
