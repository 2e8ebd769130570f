// The area's front door: other areas import from here, never from inside the area.
export { policyBlockers, runBackgroundEvaluator, runEvaluation, startEvaluation, summarizeRuns } from "./run";
export type { BackgroundEvaluator, BackgroundRunSpec } from "./run";
export type { EvalRunResult, EvaluationOutcome, EvaluationSubject, Finding } from "./types";
export type { ChangeDiff, DiffFile } from "./types";
export { runInSandbox, sandboxConfigured, sandboxFailure } from "./sandbox";
