import { afterAll, describe, expect, it, vi } from "vitest";
import { inngest } from "@/server/jobs/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { TestClock } from "@/tests/support/jobs";
import { EmbeddedExecutor } from "./executor";

// The executor's own loop (autoRun), with an idle poll of an hour: whatever starts during a test was
// started by a wake-up (send) or by a timer set for the work's due time, never by a poll.
const env = useTestEnvironment();
const HOUR = 3_600_000;
const WAIT = { timeout: 20_000, interval: 50 };

const clock = new TestClock();
const stepAt = new Map<string, number>();
const tickAt: number[] = [];
const attemptAt: number[] = [];

const prompt = inngest.createFunction(
  { id: "t-prompt", triggers: [{ event: "test/prompt" }] },
  async ({ event, step }) => step.run("note", () => stepAt.set(event.data.key as string, clock.now()).size),
);
const napper = inngest.createFunction({ id: "t-napper", triggers: [{ event: "test/nap" }] }, async ({ step }) => {
  await step.sleep("nap", "2s");
  return await step.run("after-nap", () => clock.now());
});
const flaky = inngest.createFunction(
  { id: "t-flaky-once", triggers: [{ event: "test/flaky-once" }], retries: 1 },
  async ({ step }) =>
    step.run("flaky", () => {
      attemptAt.push(clock.now());
      if (attemptAt.length === 1) throw new Error("first attempt fails");
      return attemptAt.length;
    }),
);
const ticker = inngest.createFunction({ id: "t-minutely", triggers: [{ cron: "* * * * *" }] }, async () =>
  tickAt.push(clock.now()),
);

const executor = new EmbeddedExecutor({
  functions: [prompt, napper, flaky, ticker],
  clock,
  pollMs: HOUR,
  retryBaseMs: 1000,
});
afterAll(() => executor.stop());

/** `prisma` whose first `failures` raw reads (an executor pass's look) fail as a lost connection would; `reads` counts them. */
function failingReads<T extends object>(prisma: T, reads: { count: number }, failures: number): T {
  return new Proxy(prisma, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== "$queryRawUnsafe" || typeof value !== "function") return value;
      return (...args: unknown[]) =>
        ++reads.count <= failures
          ? Promise.reject(new Error("connection lost"))
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
}

/** A second executor (an hour's idle poll) whose first `failures` raw reads fail; `reads` counts them. */
async function startFailingReads(failures: number) {
  const reads = { count: 0 };
  const failing = new EmbeddedExecutor({
    functions: [prompt],
    clock,
    pollMs: HOUR,
    jobs: { prisma: failingReads(env.database.prisma, reads, failures), kind: env.database.kind },
  });
  await failing.start();
  return { failing, reads };
}

const runOf = async (functionId: string) => {
  const runs = await env.database.prisma.jobRun.findMany({ where: { functionId: `svc-forge-${functionId}` } });
  expect(runs).toHaveLength(1);
  return runs[0];
};

describe("an idle executor", () => {
  it("fires a cron tick when it is due", async () => {
    // The clock starts 3 s before a minute boundary: the first tick is due 3 s after the start.
    const firstTick = Math.ceil((Date.now() + 10_000) / 60_000) * 60_000;
    clock.offsetMs = firstTick - 3000 - Date.now();
    await executor.start();
    await vi.waitFor(() => expect(tickAt.length).toBeGreaterThan(0), WAIT);
    expect(tickAt[0]).toBeGreaterThanOrEqual(firstTick);
  });

  it("starts a run sent while it idles at once", async () => {
    // Idle: the tick's run has completed and the loop waits for its next timer.
    await vi.waitFor(async () => expect((await runOf("t-minutely")).status).toBe("completed"), WAIT);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sentAt = clock.now();
    await inngest.send({ name: "test/prompt", data: { key: "idle" } });
    await vi.waitFor(() => expect(stepAt.has("idle")).toBe(true), WAIT);
    expect(stepAt.get("idle")).toBeGreaterThanOrEqual(sentAt);
    await vi.waitFor(async () => expect((await runOf("t-prompt")).status).toBe("completed"), WAIT);
  });

  it("resumes a sleeping run when its sleep ends, not before", async () => {
    const sentAt = clock.now();
    await inngest.send({ name: "test/nap", data: {} });
    await vi.waitFor(async () => expect((await runOf("t-napper")).status).toBe("sleeping"), WAIT);
    await vi.waitFor(async () => expect((await runOf("t-napper")).status).toBe("completed"), WAIT);
    const run = await runOf("t-napper");
    expect(run.output as number).toBeGreaterThanOrEqual(sentAt + 2000);
  });

  it("looks again soon after a pass that failed (a lost connection), not at its next idle poll", async () => {
    const { failing, reads } = await startFailingReads(1);
    // Its first pass's read failed; a later pass read again and cleared the error.
    await vi.waitFor(() => expect(reads.count).toBeGreaterThanOrEqual(2), WAIT);
    await vi.waitFor(() => expect(failing.lastTickError).toBeNull(), WAIT);
    await failing.stop();
  });

  it("while its passes keep failing (a database that is down), looks again at its idle poll, not in a loop", async () => {
    const { failing, reads } = await startFailingReads(Infinity);
    // The first failure is looked at again soon; the second waits for the poll (an hour here).
    await vi.waitFor(() => expect(reads.count).toBe(2), WAIT);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(reads.count).toBe(2);
    await failing.stop();
  });

  it("retries a failed step after its backoff, not before", async () => {
    await inngest.send({ name: "test/flaky-once", data: {} });
    await vi.waitFor(async () => expect((await runOf("t-flaky-once")).status).toBe("completed"), WAIT);
    expect(attemptAt).toHaveLength(2);
    expect(attemptAt[1] - attemptAt[0]).toBeGreaterThanOrEqual(1000);
  });
});
