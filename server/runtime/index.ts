export { startServerRuntimeOrExit } from "./start";
