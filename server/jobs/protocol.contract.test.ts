import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { NonRetriableError, version } from "inngest";
import { inngest } from "@/server/jobs/client";
import { serveFunctions } from "@/server/jobs/serve";
import { useTestEnvironment } from "@/tests/support/harness";
import { inProcessInvoker } from "./in-process";
import { embeddedSigningKey } from "./mode";
import { PROTOCOL_SDK_VERSION, readOutcome, runRequest, syncRequest, type MemoizedStep } from "./protocol";
import { readSyncAnswer } from "./registry";

/*
 * Pins the serve protocol the executor relies on to the installed SDK. When an SDK upgrade fails
 * here, check the executor against the new protocol before moving PROTOCOL_SDK_VERSION.
 */
useTestEnvironment();

const hashed = (id: string) => crypto.createHash("sha1").update(id).digest("hex");

const contract = inngest.createFunction(
  {
    id: "t-contract",
    triggers: [{ event: "test/contract", if: "event.data.go == true" }],
    retries: 2,
    concurrency: { limit: 1, key: "event.data.key" },
    cancelOn: [{ event: "test/contract-cancel", match: "data.key", timeout: "1h" }],
  },
  async ({ step, event }) => {
    const first = await step.run("first", () => {
      if (event.data.fail === "retry") throw new Error("transient");
      if (event.data.fail === "never") throw new NonRetriableError("permanent");
      return { n: 1 };
    });
    const [a, b] = await Promise.all([step.run("left", () => "l"), step.run("right", () => "r")]);
    await step.sleep("pause", "30s");
    const reply = await step.waitForEvent("reply", {
      event: "test/reply",
      timeout: "5m",
      if: "async.data.key == event.data.key",
    });
    await step.sendEvent("announce", { name: "test/announced", data: { key: event.data.key } });
    if (event.data.fail === "function") throw new Error("after the steps");
    return { first, a, b, reply };
  },
);

const handler = serveFunctions([contract]);
const serveUrl = "http://svc.test/api/inngest";
const event = (data: Record<string, unknown>) => ({
  id: crypto.randomUUID(),
  name: "test/contract",
  data: { go: true, key: "k", ...data },
  ts: Date.now(),
});

type CallOptions = { data?: Record<string, unknown>; steps?: MemoizedStep[]; stepId?: string; attempt?: number };

const runCall = (options: CallOptions) => ({
  serveUrl,
  functionId: "svc-forge-t-contract",
  stepId: options.stepId ?? "step",
  runId: "contract-run",
  event: event(options.data ?? {}),
  steps: options.steps ?? [],
  attempt: options.attempt ?? 0,
  maxAttempts: 3,
  signingKey: embeddedSigningKey(),
});

async function callRun(options: CallOptions) {
  const response = await handler.POST(runRequest(runCall(options)));
  return { response: response.clone(), outcome: await readOutcome(response) };
}

const data = (id: string, value: unknown): MemoizedStep => ({ stepId: hashed(id), type: "data", data: value });
const throughSleep = [data("first", { n: 1 }), data("left", "l"), data("right", "r"), data("pause", null)];

describe(`Inngest serve protocol (SDK ${PROTOCOL_SDK_VERSION})`, () => {
  it("is the SDK version the executor was written against", () => {
    expect(version).toBe(PROTOCOL_SDK_VERSION);
  });

  it("syncs in band with the configuration the registry reads", async () => {
    const response = await handler.PUT(syncRequest(serveUrl, embeddedSigningKey()));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.functions[0]).toEqual({
      id: "svc-forge-t-contract",
      name: "t-contract",
      triggers: [{ event: "test/contract", expression: "event.data.go == true" }],
      steps: {
        step: {
          id: "step",
          name: "step",
          runtime: { type: "http", url: `${serveUrl}?fnId=svc-forge-t-contract&stepId=step` },
          retries: { attempts: 2 },
        },
      },
      concurrency: { limit: 1, key: "event.data.key" },
      cancel: [{ event: "test/contract-cancel", timeout: "1h", if: "event.data.key == async.data.key" }],
    });
    const [spec] = readSyncAnswer(body);
    expect(spec).toMatchObject({ id: "svc-forge-t-contract", maxAttempts: 3, concurrency: { limit: 1 } });
  });

  it("runs a new step at once and reports it as StepRun with its hashed id", async () => {
    const { outcome } = await callRun({});
    expect(outcome).toMatchObject({
      kind: "ops",
      ops: [{ id: hashed("first"), op: "StepRun", displayName: "first", data: { n: 1 } }],
    });
  });

  it("reports a step error as StepError (retriable) and as StepFailed on the last attempt or for NonRetriableError", async () => {
    const retriable = await callRun({ data: { fail: "retry" } });
    expect(retriable.response.status).toBe(206);
    expect(retriable.response.headers.get("x-inngest-no-retry")).toBe("false");
    expect(retriable.outcome).toMatchObject({
      kind: "ops",
      ops: [{ op: "StepError", error: { message: "transient" } }],
    });
    const last = await callRun({ data: { fail: "retry" }, attempt: 2 });
    expect(last.outcome).toMatchObject({ kind: "ops", ops: [{ op: "StepFailed", error: { message: "transient" } }] });
    const permanent = await callRun({ data: { fail: "never" } });
    expect(permanent.outcome).toMatchObject({
      kind: "ops",
      ops: [{ op: "StepFailed", error: { name: "NonRetriableError" } }],
    });
    const memoizedFailure = await callRun({
      data: { fail: "never" },
      steps: [{ stepId: hashed("first"), type: "error", error: { name: "NonRetriableError", message: "permanent" } }],
    });
    expect(memoizedFailure.response.status).toBe(400);
    expect(memoizedFailure.outcome).toEqual({ kind: "failed", error: "NonRetriableError: permanent" });
  });

  it("plans parallel steps, then runs each one when asked by id", async () => {
    const { outcome } = await callRun({ steps: [data("first", { n: 1 })] });
    expect(outcome).toMatchObject({
      kind: "ops",
      ops: [
        { op: "StepPlanned", id: hashed("left") },
        { op: "StepPlanned", id: hashed("right") },
      ],
    });
    const planned = await callRun({ steps: [data("first", { n: 1 })], stepId: hashed("right") });
    expect(planned.outcome).toMatchObject({ kind: "ops", ops: [{ op: "StepRun", id: hashed("right"), data: "r" }] });
  });

  it("reports sleeps with their duration and waits with event, timeout and if", async () => {
    const sleep = await callRun({ steps: throughSleep.slice(0, 3) });
    expect(sleep.outcome).toMatchObject({ kind: "ops", ops: [{ op: "Sleep", id: hashed("pause"), name: "30s" }] });
    const wait = await callRun({ steps: throughSleep });
    expect(wait.outcome).toMatchObject({
      kind: "ops",
      ops: [
        {
          op: "WaitForEvent",
          id: hashed("reply"),
          name: "test/reply",
          opts: { timeout: "5m", if: "async.data.key == event.data.key" },
        },
      ],
    });
  });

  it("sends step.sendEvent through the client's fetch and finishes with 200 and the output", async () => {
    const steps = [...throughSleep, data("reply", null)];
    const send = await callRun({ steps });
    expect(send.outcome).toMatchObject({
      kind: "ops",
      ops: [{ op: "StepRun", id: hashed("announce"), data: { ids: [expect.any(String)] } }],
    });
    const done = await callRun({ steps: [...steps, data("announce", { ids: ["x"] })] });
    expect(done.response.status).toBe(200);
    expect(done.outcome).toEqual({ kind: "completed", output: { first: { n: 1 }, a: "l", b: "r", reply: null } });
  });

  it("answers errors outside steps with 500 (retry) or, on the last attempt, 400 (no retry)", async () => {
    const steps = [...throughSleep, data("reply", null), data("announce", { ids: ["x"] })];
    const retry = await callRun({ data: { fail: "function" }, steps });
    expect(retry.response.status).toBe(500);
    expect(retry.outcome).toEqual({ kind: "retry", error: "after the steps", retryAfter: null });
    const last = await callRun({ data: { fail: "function" }, steps, attempt: 2 });
    expect(last.response.headers.get("x-inngest-no-retry")).toBe("true");
    expect(last.outcome).toEqual({ kind: "failed", error: "after the steps" });
  });

  it("answers in-process what it answers over the serve protocol", async () => {
    const inProcess = inProcessInvoker([contract]);
    // Step timings and the ids of sent events differ from call to call.
    const comparable = (outcome: unknown) =>
      JSON.parse(JSON.stringify(outcome, (key, value) => (key === "timing" || key === "ids" ? undefined : value)));
    const steps = [...throughSleep, data("reply", null)];
    const calls: CallOptions[] = [
      {},
      { data: { fail: "retry" } },
      { data: { fail: "retry" }, attempt: 2 },
      { data: { fail: "never" } },
      {
        data: { fail: "never" },
        steps: [{ stepId: hashed("first"), type: "error", error: { name: "NonRetriableError", message: "permanent" } }],
      },
      { steps: [data("first", { n: 1 })] },
      { steps: [data("first", { n: 1 })], stepId: hashed("right") },
      { steps: throughSleep.slice(0, 3) },
      { steps: throughSleep },
      { steps },
      { steps: [...steps, data("announce", { ids: ["x"] })] },
      { data: { fail: "function" }, steps: [...steps, data("announce", { ids: ["x"] })] },
      { data: { fail: "function" }, steps: [...steps, data("announce", { ids: ["x"] })], attempt: 2 },
    ];
    for (const options of calls) {
      const over = (await callRun(options)).outcome;
      expect(comparable(await inProcess(runCall(options)))).toEqual(comparable(over));
    }
  });

  it("refuses calls signed with another key", async () => {
    const request = runRequest({
      serveUrl,
      functionId: "svc-forge-t-contract",
      stepId: "step",
      runId: "forged",
      event: event({}),
      steps: [],
      attempt: 0,
      maxAttempts: 3,
      signingKey: `signkey-embedded-${"cd".repeat(32)}`,
    });
    expect((await handler.POST(request)).status).toBe(401);
  });
});
