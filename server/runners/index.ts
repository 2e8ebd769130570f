// The area's front door: executes one sandbox run (checkout, isolation, setup, cache, command,
// log, findings). Queueing, waiting and storage of runs belong to the callers.
export type { RunFinding, RunResult, RunSpec } from "./types";
export { executeRun, runInCheckout, stepFailure, type CheckoutCommand } from "./execute";
export type { IsolatedOutcome } from "./isolate";
export { assertSandboxReady, sandboxAvailable } from "./bwrap";
export { cutLine, readLogFrom, type LogRead } from "./log";
export { launcherLost } from "./launcher";
export { sweepOrphanCgroups } from "./limits";
export { layoutsRemoved, sweepOrphanCheckouts } from "./layout";
