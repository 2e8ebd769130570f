import { afterAll, describe, expect, it } from "vitest";
import { NonRetriableError, RetryAfterError } from "inngest";
import { inngest } from "@/server/jobs/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { advanceJobClock, drainJobs, startTestExecutor, stopTestExecutor } from "@/tests/support/jobs";

const env = useTestEnvironment();
afterAll(stopTestExecutor);

const prisma = () => env.database.prisma;
const runsOf = (fn: string) =>
  prisma().jobRun.findMany({ where: { functionId: `svc-forge-${fn}` }, orderBy: { createdAt: "asc" } });
const only = async (fn: string) => {
  const runs = await runsOf(fn);
  expect(runs).toHaveLength(1);
  return runs[0];
};

// Test-only functions, registered with the test executor only.
let flakyCalls = 0;
const flaky = inngest.createFunction(
  { id: "t-flaky", triggers: [{ event: "test/flaky" }], retries: 3 },
  async ({ step }) => {
    const value = await step.run("flaky-step", () => {
      flakyCalls++;
      if (flakyCalls < 3) throw new Error(`boom ${flakyCalls}`);
      return { calls: flakyCalls };
    });
    return { value };
  },
);

const failures: string[] = [];
const doomed = inngest.createFunction(
  {
    id: "t-doomed",
    triggers: [{ event: "test/doomed" }],
    retries: 1,
    onFailure: async ({ error, event }) => {
      failures.push(`${error.message} for ${(event.data.event as { data: { id: string } }).data.id}`);
      return "handled";
    },
  },
  async ({ step }) =>
    step.run("always-fails", () => {
      throw new Error("never works");
    }),
);

const nonRetriable = inngest.createFunction(
  { id: "t-nonretriable", triggers: [{ event: "test/nonretriable" }], retries: 5 },
  async ({ step }) =>
    step.run("refuse", () => {
      throw new NonRetriableError("bad input");
    }),
);

const later = inngest.createFunction({ id: "t-later", triggers: [{ event: "test/later" }] }, async ({ step }) =>
  step.run("rate-limited", () => {
    throw new RetryAfterError("slow down", "1h");
  }),
);

const sleeper = inngest.createFunction({ id: "t-sleeper", triggers: [{ event: "test/sleep" }] }, async ({ step }) => {
  await step.sleep("nap", "1h");
  return await step.run("after-nap", () => "awake");
});

const waiter = inngest.createFunction(
  { id: "t-waiter", triggers: [{ event: "test/wait" }], cancelOn: [{ event: "test/cancel", match: "data.id" }] },
  async ({ step }) => {
    const approval = await step.waitForEvent("approval", {
      event: "test/approved",
      timeout: "1h",
      if: "async.data.id == event.data.id",
    });
    return approval ? { approvedBy: approval.data.by } : { timedOut: true };
  },
);

const stepCounts = new Map<string, number>();
const countStep = (name: string) => stepCounts.set(name, (stepCounts.get(name) ?? 0) + 1);
const parallel = inngest.createFunction(
  { id: "t-parallel", triggers: [{ event: "test/parallel" }] },
  async ({ step }) => {
    const parts = await Promise.all(
      ["a", "b", "c"].map((name, i) => step.run(`part-${name}`, () => (countStep(`part-${name}`), i + 1))),
    );
    return parts.reduce((sum, part) => sum + part, 0);
  },
);

const parent = inngest.createFunction(
  { id: "t-parent", triggers: [{ event: "test/parent", if: "event.data.go == true" }] },
  async ({ event, step }) => {
    await step.sendEvent("spawn", { name: "test/child", data: { from: event.data.name } });
    return "sent";
  },
);
const child = inngest.createFunction(
  { id: "t-child", triggers: [{ event: "test/child" }] },
  async ({ event }) => `child of ${event.data.from}`,
);

const inFlight = new Map<string, number>();
let maxInFlight = 0;
const limited = inngest.createFunction(
  { id: "t-limited", triggers: [{ event: "test/limited" }], concurrency: { limit: 1, key: "event.data.project" } },
  async ({ event, step }) =>
    step.run("exclusive", async () => {
      const project = event.data.project as string;
      inFlight.set(project, (inFlight.get(project) ?? 0) + 1);
      maxInFlight = Math.max(maxInFlight, inFlight.get(project)!);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight.set(project, inFlight.get(project)! - 1);
      return project;
    }),
);

let cronRuns = 0;
const ticker = inngest.createFunction({ id: "t-ticker", triggers: [{ cron: "*/5 * * * *" }] }, async () => ++cronRuns);

const testFunctions = [flaky, doomed, nonRetriable, later, sleeper, waiter, parallel, parent, child, limited, ticker];

describe("embedded executor", () => {
  it("stores sent events durably before send() resolves", async () => {
    await startTestExecutor({ functions: testFunctions });
    const { ids } = await inngest.send({ name: "test/nothing-listens", data: { n: 1 } });
    const stored = await prisma().jobEvent.findUnique({ where: { id: ids[0] } });
    expect(stored).toMatchObject({ name: "test/nothing-listens", data: { n: 1 } });
  });

  it("stores a batch in the order sent and an already stored id once", async () => {
    const names = ["c", "a", "b"].map((suffix) => `test/ordered-${suffix}`);
    await inngest.send(names.map((name) => ({ id: `ordered-${name}`, name, data: { name } })));
    await inngest.send({ id: "ordered-test/ordered-a", name: "test/ordered-again", data: {} });
    const stored = await prisma().jobEvent.findMany({
      where: { id: { startsWith: "ordered-" } },
      orderBy: { seq: "asc" },
    });
    expect(stored.map((event) => event.name)).toEqual(names);
    expect(stored.map((event) => event.data)).toEqual(names.map((name) => ({ name })));
  });

  it("retries a step that fails twice, then memoizes its result", async () => {
    await inngest.send({ name: "test/flaky", data: {} });
    await drainJobs({ fastForward: true });
    const run = await only("t-flaky");
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ value: { calls: 3 } });
    const steps = await prisma().jobStep.findMany({ where: { runId: run.id } });
    expect(steps).toMatchObject([{ name: "flaky-step", type: "data", attempts: 3 }]);
    expect(flakyCalls).toBe(3);
  });

  it("fails the run after its last attempt and runs onFailure", async () => {
    await inngest.send({ name: "test/doomed", data: { id: "d1" } });
    await drainJobs({ fastForward: true });
    const run = await only("t-doomed");
    expect(run).toMatchObject({ status: "failed", lastError: "never works" });
    expect(failures).toEqual(["never works for d1"]);
    const failureRun = await only("t-doomed-failure");
    expect(failureRun).toMatchObject({ status: "completed", output: "handled" });
  });

  it("does not retry a NonRetriableError", async () => {
    await inngest.send({ name: "test/nonretriable", data: {} });
    await drainJobs({ fastForward: true });
    const run = await only("t-nonretriable");
    expect(run).toMatchObject({ status: "failed", lastError: "NonRetriableError: bad input" });
    const steps = await prisma().jobStep.findMany({ where: { runId: run.id } });
    expect(steps).toMatchObject([{ type: "error", attempts: 1 }]);
  });

  it("honours retry-after", async () => {
    await inngest.send({ name: "test/later", data: {} });
    await drainJobs();
    const run = await only("t-later");
    expect(run.status).toBe("queued");
    expect(run.lastError).toBe("RetryAfterError: slow down");
    const delay = run.availableAt.getTime() - run.updatedAt.getTime();
    expect(delay).toBeGreaterThan(3_500_000);
  });

  it("sleeps until the clock passes the sleep", async () => {
    await inngest.send({ name: "test/sleep", data: {} });
    await drainJobs();
    expect((await only("t-sleeper")).status).toBe("sleeping");
    advanceJobClock(59 * 60_000);
    await drainJobs();
    expect((await only("t-sleeper")).status).toBe("sleeping");
    advanceJobClock(60_000);
    await drainJobs();
    expect(await only("t-sleeper")).toMatchObject({ status: "completed", output: "awake" });
  });

  it("resumes a waitForEvent on the matching event only", async () => {
    await inngest.send({ name: "test/wait", data: { id: "w1" } });
    await drainJobs();
    expect((await only("t-waiter")).status).toBe("waiting");
    await inngest.send({ name: "test/approved", data: { id: "other", by: "mallory" } });
    await drainJobs();
    expect((await only("t-waiter")).status).toBe("waiting");
    await inngest.send({ name: "test/approved", data: { id: "w1", by: "alice" } });
    await drainJobs();
    expect(await only("t-waiter")).toMatchObject({ status: "completed", output: { approvedBy: "alice" } });
  });

  it("times a waitForEvent out with null", async () => {
    await prisma().jobRun.deleteMany({ where: { functionId: "svc-forge-t-waiter" } });
    await inngest.send({ name: "test/wait", data: { id: "w2" } });
    await drainJobs();
    advanceJobClock(61 * 60_000);
    await drainJobs();
    expect(await only("t-waiter")).toMatchObject({ status: "completed", output: { timedOut: true } });
  });

  it("cancels a run on its cancelOn event", async () => {
    await prisma().jobRun.deleteMany({ where: { functionId: "svc-forge-t-waiter" } });
    await inngest.send({ name: "test/wait", data: { id: "w3" } });
    await drainJobs();
    await inngest.send({ name: "test/cancel", data: { id: "someone-else" } });
    await drainJobs();
    expect((await only("t-waiter")).status).toBe("waiting");
    await inngest.send({ name: "test/cancel", data: { id: "w3" } });
    await drainJobs({ fastForward: true });
    expect((await only("t-waiter")).status).toBe("cancelled");
  });

  it("runs parallel steps once each", async () => {
    await inngest.send({ name: "test/parallel", data: {} });
    await drainJobs();
    expect(await only("t-parallel")).toMatchObject({ status: "completed", output: 6 });
    expect(Object.fromEntries(stepCounts)).toEqual({ "part-a": 1, "part-b": 1, "part-c": 1 });
  });

  it("starts runs only when the trigger's if matches, and step.sendEvent triggers other functions", async () => {
    await inngest.send([
      { name: "test/parent", data: { go: false, name: "skipped" } },
      { name: "test/parent", data: { go: true, name: "p1" } },
    ]);
    await drainJobs();
    expect(await only("t-parent")).toMatchObject({ status: "completed", output: "sent" });
    expect(await only("t-child")).toMatchObject({ status: "completed", output: "child of p1" });
  });

  it("marks events that start nothing as processed, in order with those that start runs, and still hands one a run waits for", async () => {
    const unprocessed = () => prisma().jobEvent.count({ where: { processedAt: null } });
    const before = (await runsOf("t-parent")).length;
    await inngest.send([
      { name: "test/nobody-listens", data: {} },
      { name: "test/parent", data: { go: false, name: "quiet" } },
      { name: "test/parent", data: { go: true, name: "p2" } },
      { name: "test/nobody-listens", data: {} },
    ]);
    await drainJobs();
    expect(await unprocessed()).toBe(0);
    expect(
      (await runsOf("t-parent")).slice(before).map((run) => (run.event as { data: { name: string } }).data.name),
    ).toEqual(["p2"]);

    // Nothing triggers on test/approved, but a run waits for it: the waiter gets it. (The event
    // alone before it makes the executor try the quick marking first again.)
    await prisma().jobRun.deleteMany({ where: { functionId: "svc-forge-t-waiter" } });
    await inngest.send({ name: "test/wait", data: { id: "w4" } });
    await drainJobs();
    await inngest.send({ name: "test/nobody-listens", data: {} });
    await drainJobs();
    await inngest.send([
      { name: "test/nobody-listens", data: {} },
      { name: "test/approved", data: { id: "w4", by: "carol" } },
    ]);
    await drainJobs();
    expect(await only("t-waiter")).toMatchObject({ status: "completed", output: { approvedBy: "carol" } });
    expect(await unprocessed()).toBe(0);
  });

  it("keeps one run per concurrency key at a time", async () => {
    await inngest.send(["p1", "p1", "p1", "p2", "p2"].map((project) => ({ name: "test/limited", data: { project } })));
    await drainJobs({ fastForward: true });
    const runs = await runsOf("t-limited");
    expect(runs.map((run) => run.status)).toEqual(["completed", "completed", "completed", "completed", "completed"]);
    expect(maxInFlight).toBe(1);
  });

  it("fires cron functions once per tick", async () => {
    await drainJobs();
    const before = cronRuns;
    advanceJobClock(5 * 60_000);
    await drainJobs();
    await drainJobs();
    expect(cronRuns).toBe(before + 1);
    expect(await runsOf("t-ticker")).toHaveLength(before + 1);
  });

  it("refuses functions with options it does not implement", async () => {
    const throttled = inngest.createFunction(
      { id: "t-throttled", triggers: [{ event: "test/x" }], throttle: { limit: 1, period: "1m" } },
      async () => 1,
    );
    await expect(startTestExecutor({ functions: [throttled] })).rejects.toThrow(/throttle not supported/);
    const jittered = inngest.createFunction(
      { id: "t-jitter", triggers: [{ cron: "* * * * *", jitter: "10s" }] },
      async () => 1,
    );
    await expect(startTestExecutor({ functions: [jittered] })).rejects.toThrow(/jitter is not supported/);
  });
});
