import type { WebhookPolicy } from "@/server/policy/schema";
import { assertAllowedTarget } from "@/server/webhooks/targets";
import { parseVerdictReply } from "./verdict";
import type { EvalRunResult, EvaluationSubject } from "./types";

/** The body POSTed to a policy's webhook evaluator. */
export function webhookPayload(subject: EvaluationSubject) {
  return {
    event: "change.evaluate",
    project: subject.project,
    change: {
      id: subject.changeId ?? null,
      baseSha: subject.diff.base,
      tipSha: subject.diff.tip,
      additions: subject.diff.additions,
      deletions: subject.diff.deletions,
      files: subject.diff.files.map((f) => ({ path: f.path, status: f.status, additions: f.additions, deletions: f.deletions, binary: f.binary })),
    },
  };
}

/**
 * POSTs the change to the policy URL and takes the verdict from the reply: 2xx with
 * `{"verdict": "pass"|"fail", "issues"?: [...]}`. Anything else (timeout, other status, a reply
 * without a verdict) is an error run, which fails the evaluation.
 */
export async function runWebhookEvaluator(subject: EvaluationSubject, policy: WebhookPolicy): Promise<Omit<EvalRunResult, "evaluator" | "durationMs">> {
  await assertAllowedTarget(new URL(policy.url));
  let response: Response;
  try {
    response = await fetch(policy.url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "svc-forge-evaluator", "x-svc-event": "change.evaluate" },
      body: JSON.stringify(webhookPayload(subject)),
      signal: AbortSignal.timeout(policy.timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    return { status: "error", findings: [{ message: timedOut ? `Webhook evaluator timed out after ${policy.timeoutMs} ms` : `Webhook evaluator unreachable: ${(error as Error).message}` }] };
  }
  const text = await response.text();
  if (!response.ok) return { status: "error", findings: [{ message: `Webhook evaluator answered HTTP ${response.status}` }] };
  return parseVerdictReply(text, "Webhook evaluator");
}
