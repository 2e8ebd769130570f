import { evaluateDiff } from "./diff";
import { llmConfigured, runLlmEvaluator } from "./llm";
import { runSandboxEvaluator, sandboxConfigured } from "./sandbox";
import { describeSecretFinding, scanFiles } from "./secret-scan/scanner";
import { timed, verdictOf, type EvalRunResult, type EvaluationOutcome, type EvaluationSubject } from "./types";
import { runWebhookEvaluator } from "./webhook";
import type { Policy, PolicyResult } from "@/server/policy";

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
      subject.diff.files.filter((f) => f.newText !== null).map((f) => ({ path: f.path, oldText: f.oldText, newText: f.newText! })),
      { allowPaths },
    );
    const findings = found.map((f) => ({ rule: f.rule, file: f.file, line: f.line, message: describeSecretFinding(f) }));
    return { status: verdictOf(findings), findings };
  });
}

const unconfigured = (evaluator: EvalRunResult["evaluator"], message: string): EvalRunResult => ({
  evaluator,
  status: "error",
  findings: [{ message }],
  durationMs: 0,
});

/** The policy's evaluators besides the secret scan, run concurrently. */
function policyRuns(subject: EvaluationSubject, policy: Policy): Array<Promise<EvalRunResult>> {
  const { diff, webhook, llm, sandbox } = policy.evaluators;
  const runs: Array<Promise<EvalRunResult>> = [];
  if (diff) runs.push(timed("diff", async () => evaluateDiff(subject.diff, diff)));
  if (webhook) runs.push(timed("webhook", () => runWebhookEvaluator(subject, webhook)));
  if (llm) {
    runs.push(llmConfigured() ? timed("llm", () => runLlmEvaluator(subject, llm)) : Promise.resolve(unconfigured("llm", "The llm evaluator is not configured on this instance (LLM_API_URL)")));
  }
  if (sandbox) {
    runs.push(
      sandboxConfigured()
        ? timed("sandbox", () => runSandboxEvaluator(subject.repo, subject.diff.tip, sandbox))
        : Promise.resolve(unconfigured("sandbox", "The sandbox evaluator is not configured on this instance (SANDBOX_ENABLED)")),
    );
  }
  return runs;
}

/**
 * Evaluates a change under its project's policy: the secret scan always, then the evaluators the
 * policy names. An invalid policy fails the evaluation with the parse error (never the defaults).
 */
export async function runEvaluation(subject: EvaluationSubject): Promise<EvaluationOutcome> {
  const pending = [secretScanRun(subject)];
  if (subject.policy.ok) pending.push(...policyRuns(subject, subject.policy.policy));
  else pending.push(Promise.resolve(unconfigured("policy", subject.policy.error)));
  const runs = await Promise.all(pending);
  const issues = runs.flatMap((run) => (run.status === "passed" ? [] : run.findings.map((f) => `${run.evaluator}: ${f.message}`)));
  const failed = runs.filter((run) => run.status !== "passed");
  return {
    verdict: failed.length === 0 ? "passed" : "failed",
    summary: failed.length === 0 ? `${runs.length} evaluator(s) passed` : `Failed: ${failed.map((run) => `${run.evaluator} (${run.status})`).join(", ")}`,
    issues,
    runs,
  };
}
