// The area's front door: other areas import from here, never from inside the area.
export { policyBlockers, runEvaluation } from "./run";
export type { EvaluationOutcome } from "./types";
export type { ChangeDiff, DiffFile } from "./types";
export { runInSandbox, sandboxConfigured, sandboxFailure } from "./sandbox";
