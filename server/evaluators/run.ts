import { evaluateDiff } from "./diff";
import { llmConfigured, runLlmEvaluator } from "./llm";
import { runSandboxEvaluator, sandboxConfigured } from "./sandbox";
import { describeSecretFinding, scanFiles } from "./secret-scan/scanner";
import { timed, verdictOf, type EvalRunResult, type EvaluationOutcome, type EvaluationSubject } from "./types";
import { runWebhookEvaluator } from "./webhook";
import type { LlmPolicy, Policy, PolicyResult, SandboxPolicy, WebhookPolicy } from "@/server/policy";

/** Evaluators a policy names whose instance binding is absent: they fail closed. */
export function missingBindings(policy: Policy): string[] {
  const missing: string[] = [];
  if (policy.evaluators.llm && !llmConfigured()) missing.push("llm (LLM_API_URL is not configured)");
  if (policy.evaluators.sandbox && !sandboxConfigured()) missing.push("sandbox (SANDBOX_ENABLED is not set)");
  return missing;
}

/** Protection reasons that come from the policy itself and that no force can skip. */
export function policyBlockers(policy: PolicyResult): string[] {
  if (!policy.ok) return [policy.error];
  return missingBindings(policy.policy).map((binding) => `The policy names evaluator ${binding}`);
}

/** Runs the secret scan on what the change adds. Also the gate of conflict resolutions. */
export function secretScanRun(subject: EvaluationSubject): Promise<EvalRunResult> {
  const allowPaths = subject.policy.ok ? subject.policy.policy.evaluators.secretScan.allowPaths : [];
  return timed("secretScan", async () => {
    const found = scanFiles(
      subject.diff.files
        .filter((f) => f.newText !== null)
        .map((f) => ({ path: f.path, oldText: f.oldText, newText: f.newText! })),
      { allowPaths },
    );
    const findings = found.map((f) => ({
      rule: f.rule,
      file: f.file,
      line: f.line,
      message: describeSecretFinding(f),
    }));
    return { status: verdictOf(findings), findings };
  });
}

const unconfigured = (evaluator: EvalRunResult["evaluator"], message: string): EvalRunResult => ({
  evaluator,
  status: "error",
  findings: [{ message }],
  durationMs: 0,
});

/** Evaluators that may take long: they run as background runs, never inside a request. */
export type BackgroundEvaluator = "sandbox" | "webhook" | "llm";

/** A background run to start: the evaluator and the settings it runs with (kept with the run). */
export type BackgroundRunSpec =
  | { evaluator: "sandbox"; settings: SandboxPolicy }
  | { evaluator: "webhook"; settings: WebhookPolicy }
  | { evaluator: "llm"; settings: LlmPolicy };

/** The policy's fast evaluators (done now) and its long ones (to run in the background). */
function policyRuns(
  subject: EvaluationSubject,
  policy: Policy,
): { done: Array<Promise<EvalRunResult>>; background: BackgroundRunSpec[] } {
  const { diff, webhook, llm, sandbox } = policy.evaluators;
  const done: Array<Promise<EvalRunResult>> = [];
  const background: BackgroundRunSpec[] = [];
  if (diff) done.push(timed("diff", async () => evaluateDiff(subject.diff, diff)));
  if (webhook) background.push({ evaluator: "webhook", settings: webhook });
  if (llm) {
    if (llmConfigured()) background.push({ evaluator: "llm", settings: llm });
    else
      done.push(
        Promise.resolve(unconfigured("llm", "The llm evaluator is not configured on this instance (LLM_API_URL)")),
      );
  }
  if (sandbox) {
    if (sandboxConfigured()) background.push({ evaluator: "sandbox", settings: sandbox });
    else
      done.push(
        Promise.resolve(
          unconfigured("sandbox", "The sandbox evaluator is not configured on this instance (SANDBOX_ENABLED)"),
        ),
      );
  }
  return { done, background };
}

/** Runs a background webhook or llm evaluator (the sandbox runs through the runners); `signal` gives up its call. */
export function runBackgroundEvaluator(
  subject: EvaluationSubject,
  spec: BackgroundRunSpec,
  signal?: AbortSignal,
): Promise<EvalRunResult> {
  if (spec.evaluator === "webhook") return timed("webhook", () => runWebhookEvaluator(subject, spec.settings, signal));
  if (spec.evaluator === "llm") return timed("llm", () => runLlmEvaluator(subject, spec.settings, signal));
  return timed("sandbox", () => runSandboxEvaluator(subject.repo, subject.diff.tip, spec.settings));
}

/** The verdict, summary and issues of a round's final runs. */
export function summarizeRuns(
  runs: Array<Pick<EvalRunResult, "evaluator" | "status" | "findings">>,
): Omit<EvaluationOutcome, "runs"> {
  const issues = runs.flatMap((run) =>
    run.status === "passed" ? [] : run.findings.map((f) => `${run.evaluator}: ${f.message}`),
  );
  const failed = runs.filter((run) => run.status !== "passed");
  return {
    verdict: failed.length === 0 ? "passed" : "failed",
    summary:
      failed.length === 0
        ? `${runs.length} evaluator(s) passed`
        : `Failed: ${failed.map((run) => `${run.evaluator} (${run.status})`).join(", ")}`,
    issues,
  };
}

/**
 * Starts evaluating a change under its project's policy: the secret scan always, the fast
 * evaluators the policy names, now; the long ones (sandbox, webhook, llm) are returned to run in
 * the background. An invalid policy fails the evaluation with the parse error (never the defaults).
 */
export async function startEvaluation(
  subject: EvaluationSubject,
): Promise<{ runs: EvalRunResult[]; background: BackgroundRunSpec[] }> {
  const pending = [secretScanRun(subject)];
  let background: BackgroundRunSpec[] = [];
  if (subject.policy.ok) {
    const planned = policyRuns(subject, subject.policy.policy);
    pending.push(...planned.done);
    background = planned.background;
  } else pending.push(Promise.resolve(unconfigured("policy", subject.policy.error)));
  return { runs: await Promise.all(pending), background };
}

/**
 * Evaluates a change at once, every evaluator in this call (the merge queue's and a promoted
 * change's follow-up, which run in jobs, not requests).
 */
export async function runEvaluation(subject: EvaluationSubject): Promise<EvaluationOutcome> {
  const { runs: done, background } = await startEvaluation(subject);
  const runs = [...done, ...(await Promise.all(background.map((spec) => runBackgroundEvaluator(subject, spec))))];
  return { ...summarizeRuns(runs), runs };
}
