import type { Repo } from "@/server/git";
import type { PolicyResult } from "@/server/policy";

export interface Finding {
  message: string;
  file?: string;
  line?: number;
  rule?: string;
}

export type EvaluatorName = "secretScan" | "diff" | "webhook" | "llm" | "sandbox" | "policy";

export interface EvalRunResult {
  evaluator: EvaluatorName;
  /** error: the evaluator could not give a verdict (unreachable, misconfigured, no binding); counts as a failure. */
  status: "passed" | "failed" | "error";
  findings: Finding[];
  durationMs: number;
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
}

export interface EvaluationSubject {
  project: { id: string; path: string };
  /** Absent while a conflict resolution is being evaluated. */
  changeId?: string;
  /** Holds base and tip objects (the project repository once the tip's objects are copied in). */
  repo: Repo;
  diff: ChangeDiff;
  policy: PolicyResult;
}

export interface EvaluationOutcome {
  verdict: "passed" | "failed";
  summary: string;
  /** One line per problem, prefixed by the evaluator that found it. */
  issues: string[];
  runs: EvalRunResult[];
}

/** Times an evaluator; an exception becomes an `error` run instead of failing the request. */
export async function timed(
  evaluator: EvaluatorName,
  run: () => Promise<Omit<EvalRunResult, "evaluator" | "durationMs">>,
): Promise<EvalRunResult> {
  const started = performance.now();
  try {
    const result = await run();
    return { evaluator, ...result, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      evaluator,
      status: "error",
      findings: [{ message: (error as Error).message }],
      durationMs: Math.round(performance.now() - started),
    };
  }
}

export const verdictOf = (findings: Finding[]): "passed" | "failed" => (findings.length === 0 ? "passed" : "failed");

/** What the evaluators judge: the change's files against the base, with texts for the text files. */
export interface DiffFile {
  path: string;
  status: "added" | "modified" | "deleted";
  additions: number;
  deletions: number;
  binary: boolean;
  /** Size of the new content in bytes (0 for a deletion). */
  bytes: number;
  /** Text before and after (null when absent or binary). */
  oldText: string | null;
  newText: string | null;
}

export interface ChangeDiff {
  base: string;
  tip: string;
  files: DiffFile[];
  additions: number;
  deletions: number;
}
