// The area's front door: executes one sandbox run (checkout, isolation, setup, cache, command,
// log, findings). Queueing, waiting and storage of runs belong to the callers.
export type { RunFinding, RunResult, RunSpec } from "./types";
export { executeRun } from "./execute";
export { sandboxAvailable } from "./bwrap";
