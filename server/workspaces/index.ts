// The area's front door: other areas import from here, never from inside the area.
export { canWriteWorkspace, findWorkspace, workspaceAlongside, workspaceNameSql, workspaceNames } from "./service";
// Loaded with the area: workspace keys register their revocation on change.merged / change.rejected.
export { revokeWorkspaceKey, sweepDeadKeys } from "./keys";
