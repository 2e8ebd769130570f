// The area's front door: other areas import from here, never from inside the area.
export { canWriteWorkspace, findWorkspace, workspaceAlongside, workspaceNameSql, workspaceNames } from "./service";
export { revokeKeysOfChanges, revokeKeysOnMove, revokeWorkspaceKey, sweepDeadKeys } from "./keys";
