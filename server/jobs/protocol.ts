import crypto from "node:crypto";

/**
 * The Inngest serve protocol as the embedded executor speaks it to the SDK's handler (see
 * docs/contracts.md#job-protocol). Pinned to this SDK version by the contract test: an SDK
 * upgrade must be checked against it before the pin moves.
 */
export const PROTOCOL_SDK_VERSION = "4.24.0";

/** The execution version the executor asks for (V2: parallel steps are reported as planned ops). */
const EXECUTION_VERSION = 2;

/** JSON with object keys sorted, as the SDK canonicalizes a body before checking its signature. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .sort()
    .filter((key) => record[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${entries.join(",")}}`;
}

/** `x-inngest-signature` for a body: HMAC-SHA256 over body + unix seconds, keyed by the key without its prefix. */
export function signature(body: string, signingKey: string, unixSeconds = Math.round(Date.now() / 1000)): string {
  const key = signingKey.replace(/^signkey-\w+-/, "");
  const digest = crypto
    .createHmac("sha256", key)
    .update(body + unixSeconds)
    .digest("hex");
  return `t=${unixSeconds}&s=${digest}`;
}

function signedRequest(
  method: "PUT" | "POST",
  url: string,
  payload: unknown,
  signingKey: string,
  headers: Record<string, string> = {},
): Request {
  const body = canonicalJson(payload);
  return new Request(url, {
    method,
    body,
    headers: { "content-type": "application/json", "x-inngest-signature": signature(body, signingKey), ...headers },
  });
}

/** An in-band sync: the handler answers with every function's configuration. */
export function syncRequest(serveUrl: string, signingKey: string): Request {
  return signedRequest("PUT", serveUrl, { url: serveUrl }, signingKey, { "x-inngest-sync-kind": "in_band" });
}

export interface MemoizedStep {
  stepId: string;
  type: "data" | "error";
  data?: unknown;
  error?: unknown;
}

export interface RunCall {
  serveUrl: string;
  functionId: string;
  /** "step" to run until the next step, or a hashed step id to run that planned step. */
  stepId: string;
  runId: string;
  event: unknown;
  /** Completed steps in completion order. */
  steps: MemoizedStep[];
  attempt: number;
  maxAttempts: number;
  signingKey: string;
}

/**
 * One call of a run. `ctx.fn_id` is left out so the SDK never checkpoints to an Inngest API, and
 * `use_api: false` makes it take events and steps from the body.
 */
export function runRequest(call: RunCall): Request {
  const url = new URL(call.serveUrl);
  url.searchParams.set("fnId", call.functionId);
  url.searchParams.set("stepId", call.stepId);
  const steps = Object.fromEntries(
    call.steps.map((step) => [
      step.stepId,
      step.type === "data" ? { type: "data", data: step.data ?? null } : { type: "error", error: step.error },
    ]),
  );
  const stack = call.steps.map((step) => step.stepId);
  return signedRequest(
    "POST",
    url.toString(),
    {
      version: EXECUTION_VERSION,
      event: call.event,
      events: [call.event],
      steps,
      ctx: {
        run_id: call.runId,
        attempt: call.attempt,
        max_attempts: call.maxAttempts,
        disable_immediate_execution: false,
        use_api: false,
        stack: { stack, current: stack.length },
      },
    },
    call.signingKey,
  );
}

/** An operation the SDK reports in a 206 answer. */
export interface Op {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  data?: unknown;
  error?: unknown;
  opts?: Record<string, unknown>;
}

export type Outcome =
  | { kind: "completed"; output: unknown }
  | { kind: "ops"; ops: Op[]; retryAfter: string | null }
  | { kind: "retry"; error: string; retryAfter: string | null }
  | { kind: "failed"; error: string };

/** "Name: message" of a serialized error. */
export function errorText(error: unknown): string {
  if (error && typeof error === "object") {
    const { name, message } = error as { name?: unknown; message?: unknown };
    if (typeof message === "string")
      return typeof name === "string" && name !== "Error" ? `${name}: ${message}` : message;
  }
  return typeof error === "string" ? error : JSON.stringify(error);
}

/**
 * Reads the handler's answer: 200 = done with output; 206 = ops (a RunComplete op is done too);
 * 5xx unless `x-inngest-no-retry: true` = retry the call (honouring `retry-after`); anything else
 * = the run fails (NonRetriableError, last attempt, refused signature).
 */
export async function readOutcome(response: Response): Promise<Outcome> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text for the error message
  }
  const retryAfter = response.headers.get("retry-after");
  if (response.status === 200) return { kind: "completed", output: body };
  if (response.status === 206) {
    const ops = (Array.isArray(body) ? body : [body]) as Op[];
    const complete = ops.find((op) => op.op === "RunComplete");
    if (complete) return { kind: "completed", output: complete.data ?? null };
    return { kind: "ops", ops, retryAfter };
  }
  const error = body ? errorText(body) : `HTTP ${response.status}`;
  if (response.status >= 500 && response.headers.get("x-inngest-no-retry") !== "true")
    return { kind: "retry", error, retryAfter };
  return { kind: "failed", error };
}
