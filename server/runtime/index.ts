// The area's front door for scripts and the root files.
export { protectDataDir } from "./data-dir";
export { startServerRuntimeOrExit } from "./start";
