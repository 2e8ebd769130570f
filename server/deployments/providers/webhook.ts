import { DEPLOY_LOG_TAIL_BYTES } from "@/server/limits";
import { guardedPost, signBody } from "@/server/webhooks";
import type { ProviderCall, ProviderResult } from "./types";

/**
 * POSTs the deployment to the entry's URL through the webhooks' guarded outbound path (address
 * policy, no redirects). X-Svc-Delivery is the deployment id on every call of an attempt: the
 * receiver's idempotency key when a call is repeated after an interruption (X-Svc-Call says which).
 * 2xx within timeoutMs succeeds; the response body's first 64 KiB is the log.
 */
export async function callWebhook(call: ProviderCall & { entry: { provider: "webhook" } }): Promise<ProviderResult> {
  const { deployment, project, entry } = call;
  const body = JSON.stringify({
    deployment: { id: deployment.id, name: deployment.name, attempt: deployment.attempt, commit: deployment.commit },
    project,
    changeId: deployment.changeId,
    secrets: call.secrets,
  });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "svc-forge-deploy",
    "x-svc-event": "deployment.requested",
    "x-svc-delivery": deployment.id,
    "x-svc-call": String(call.call),
    ...(call.signingKey !== undefined ? { "x-svc-signature": signBody(call.signingKey, body) } : {}),
  };
  const result = await guardedPost(new URL(entry.url), body, headers, {
    timeoutMs: entry.timeoutMs,
    maxResponseBytes: DEPLOY_LOG_TAIL_BYTES,
  });
  const log = result.responseExcerpt ?? "";
  if (result.refused)
    return { ok: false, log, error: result.error ?? "The deploy webhook's address is refused by the outbound policy" };
  if (result.statusCode === undefined)
    return { ok: false, log, error: `The deploy webhook call failed: ${result.error}` };
  if (result.statusCode < 200 || result.statusCode >= 300)
    return { ok: false, log, error: `The deploy webhook answered HTTP ${result.statusCode}` };
  return { ok: true, log };
}
