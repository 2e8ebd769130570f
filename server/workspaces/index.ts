// The area's front door: other areas import from here, never from inside the area.
export { canWriteWorkspace, findWorkspace, workspaceNames } from "./service";
