import type { WebhookPolicy } from "@/server/policy";
import { guardedPost } from "@/server/webhooks";
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
      files: subject.diff.files.map((f) => ({
        path: f.path,
        status: f.status,
        additions: f.additions,
        deletions: f.deletions,
        binary: f.binary,
      })),
    },
  };
}

/** Longest reply read from a webhook evaluator (a verdict with up to 100 issues of 2000 characters fits). */
const REPLY_MAX_BYTES = 1024 * 1024;

/**
 * POSTs the change to the policy URL through the webhooks' guarded outbound path (addresses
 * checked before and at connect time, no redirects) and takes the verdict from the reply: 2xx with
 * `{"verdict": "pass"|"fail", "issues"?: [...]}`. Anything else (refused target, timeout, other
 * status, a reply without a verdict) is an error run, which fails the evaluation.
 */
export async function runWebhookEvaluator(
  subject: EvaluationSubject,
  policy: WebhookPolicy,
  signal?: AbortSignal,
): Promise<Omit<EvalRunResult, "evaluator" | "durationMs">> {
  const result = await guardedPost(
    new URL(policy.url),
    JSON.stringify(webhookPayload(subject)),
    { "content-type": "application/json", "user-agent": "svc-forge-evaluator", "x-svc-event": "change.evaluate" },
    { timeoutMs: policy.timeoutMs, maxResponseBytes: REPLY_MAX_BYTES, signal },
  );
  if (result.refused) return { status: "error", findings: [{ message: result.error! }] };
  if (result.statusCode === undefined)
    return { status: "error", findings: [{ message: `Webhook evaluator call failed: ${result.error}` }] };
  if (result.statusCode < 200 || result.statusCode >= 300)
    return { status: "error", findings: [{ message: `Webhook evaluator answered HTTP ${result.statusCode}` }] };
  return parseVerdictReply(result.responseExcerpt ?? "", "Webhook evaluator");
}
