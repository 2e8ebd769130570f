import type { Inngest, InngestFunction } from "inngest";
import { InngestExecutionEngine, types } from "inngest/internals";
import { errorText, type Op, type Outcome, type RunCall } from "./protocol";

// The SDK names a function's onFailure handler `<function id>-failure` (InngestFunction.failureSuffix).
const FAILURE_SUFFIX = "-failure";

interface Served {
  fn: InngestFunction.Any;
  handlerKind: "main" | "failure";
}

/** What went over the wire would have been JSON: the same values, without a serializer's round trip surprises. */
function overTheWire<T>(value: T): T {
  const text = JSON.stringify(value === undefined ? null : value, (_key, item: unknown) =>
    typeof item === "bigint" ? undefined : item,
  );
  return text === undefined ? (null as T) : (JSON.parse(text) as T);
}

// The serve handler answers an op's missing data as null.
const withData = (op: unknown): Op => overTheWire({ ...(op as Op), data: (op as Op).data ?? null });

function retriableAfter(retriable: boolean | string | undefined): string | null {
  return typeof retriable === "string" ? retriable : null;
}

/**
 * Calls the functions this process serves without the serve protocol's HTTP round trip: the same
 * execution the SDK's serve handler starts for a run request (`InngestCommHandler.runStep`, SDK
 * PROTOCOL_SDK_VERSION), without building, signing and parsing a Request and a Response per call
 * (most of a one-step run's CPU). The answers are what `readOutcome` makes of the handler's; the
 * contract test holds both paths to the same outcomes. Values cross as JSON, as over the wire.
 */
export function inProcessInvoker(functions: InngestFunction.Any[]): (call: RunCall) => Promise<Outcome> {
  const served = new Map<string, Served>();
  for (const fn of functions) {
    // The SDK keeps a function's client private; its execution engine is handed it all the same.
    const id = fn.id((fn["client"] as Inngest.Any).id);
    served.set(id, { fn, handlerKind: "main" });
    if (fn["onFailureFn"]) served.set(`${id}${FAILURE_SUFFIX}`, { fn, handlerKind: "failure" });
  }
  return async (call) => {
    const target = served.get(call.functionId);
    if (!target) return { kind: "failed", error: `Function "${call.functionId}" was not found in this app` };
    const event = overTheWire(call.event) as Record<string, unknown>;
    const stepState = Object.fromEntries(
      call.steps.map((step) => [
        step.stepId,
        step.type === "data"
          ? { id: step.stepId, data: overTheWire(step.data) }
          : { id: step.stepId, error: overTheWire(step.error) },
      ]),
    );
    const execution = InngestExecutionEngine.createExecutionEngine({
      client: target.fn["client"] as Inngest.Any,
      fn: target.fn,
      runId: call.runId,
      reqArgs: [],
      headers: {},
      stepMode: types.StepMode.Async,
      data: {
        event,
        events: [event],
        runId: call.runId,
        attempt: call.attempt,
        maxAttempts: call.maxAttempts,
      } as never,
      stepState,
      stepCompletionOrder: call.steps.map((step) => step.stepId),
      requestedRunStep: call.stepId === "step" ? undefined : call.stepId,
      requestStartedAt: Date.now(),
      handlerKind: target.handlerKind,
      disableImmediateExecution: false,
    });
    const result = await execution.start();
    switch (result.type) {
      case "function-resolved":
        return { kind: "completed", output: overTheWire(result.data) };
      case "function-rejected": {
        const error = errorText(overTheWire(result.error));
        return result.retriable
          ? { kind: "retry", error, retryAfter: retriableAfter(result.retriable) }
          : { kind: "failed", error };
      }
      case "step-ran":
        return { kind: "ops", ops: [withData(result.step)], retryAfter: retriableAfter(result.retriable) };
      case "steps-found":
        return { kind: "ops", ops: result.steps.map(withData), retryAfter: null };
      case "step-not-found":
        return {
          kind: "retry",
          error: `Could not find step "${result.step.displayName || result.step.id}" to run`,
          retryAfter: null,
        };
      default:
        return { kind: "failed", error: `the SDK asked to change mode (${result.type})` };
    }
  };
}
