import { afterAll, describe, expect, it } from "vitest";
import { inngest } from "@/server/jobs/client";
import { serveFunctions } from "@/server/jobs/serve";
import { useTestEnvironment } from "@/tests/support/harness";
import { TestClock } from "@/tests/support/jobs";
import { EmbeddedExecutor } from "./executor";

const env = useTestEnvironment();
const executors: EmbeddedExecutor[] = [];
afterAll(async () => {
  await Promise.all(executors.map((executor) => executor.stop()));
});

/** In-process calls, as the server makes them; over the serve protocol when the calls are counted. */
function executor(
  functions: Parameters<typeof serveFunctions>[0],
  clock: TestClock,
  countCalls?: () => void,
): EmbeddedExecutor {
  const settings = { clock, autoRun: false, leaseMs: 30_000, concurrency: 4 };
  const handler = serveFunctions(functions);
  const created = countCalls
    ? new EmbeddedExecutor({
        ...settings,
        handler: { PUT: handler.PUT, POST: (req) => (countCalls(), handler.POST(req)) },
      })
    : new EmbeddedExecutor({ ...settings, functions });
  executors.push(created);
  return created;
}

describe("executor recovery and competition", () => {
  it("resumes a run interrupted by a crash in a fresh executor, without re-running finished steps", async () => {
    let firstStepRuns = 0;
    let secondStepRuns = 0;
    let unblock!: () => void;
    const gate = new Promise<void>((resolve) => (unblock = resolve));
    let signalStarted!: () => void;
    const started = new Promise<void>((resolve) => (signalStarted = resolve));
    const crashy = inngest.createFunction(
      { id: "t-crashy", triggers: [{ event: "test/crashy" }] },
      async ({ step }) => {
        await step.run("first", () => ++firstStepRuns);
        const second = await step.run("second", async () => {
          secondStepRuns++;
          if (secondStepRuns === 1) {
            signalStarted();
            await gate;
          }
          return secondStepRuns;
        });
        return { second };
      },
    );
    const clock = new TestClock();
    const doomed = await executor([crashy], clock).start();
    await inngest.send({ name: "test/crashy", data: {} });
    void doomed.tick();
    await started;
    doomed.kill();

    const fresh = await executor([crashy], clock).start();
    await fresh.drain();
    const [inFlight] = await env.database.prisma.jobRun.findMany({ where: { functionId: "svc-forge-t-crashy" } });
    expect(inFlight.status).toBe("running");

    clock.advance(31_000);
    await fresh.drain();
    const [run] = await env.database.prisma.jobRun.findMany({ where: { functionId: "svc-forge-t-crashy" } });
    expect(run).toMatchObject({ status: "completed", output: { second: 2 } });
    expect(firstStepRuns).toBe(1);

    unblock();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [after] = await env.database.prisma.jobRun.findMany({ where: { functionId: "svc-forge-t-crashy" } });
    expect(after.output).toEqual({ second: 2 });
  });

  it("never runs the same step in two executors at once", async () => {
    const running = new Set<string>();
    const executions = new Map<string, number>();
    let overlaps = 0;
    const busy = inngest.createFunction(
      { id: "t-busy", triggers: [{ event: "test/busy" }] },
      async ({ step, runId }) => {
        for (const name of ["one", "two", "three"]) {
          await step.run(name, async () => {
            const key = `${runId}:${name}`;
            if (running.has(key)) overlaps++;
            running.add(key);
            executions.set(key, (executions.get(key) ?? 0) + 1);
            await new Promise((resolve) => setTimeout(resolve, 2));
            running.delete(key);
          });
        }
      },
    );
    const clock = new TestClock();
    const calls = [0, 0];
    const first = await executor([busy], clock, () => calls[0]++).start();
    const second = await executor([busy], clock, () => calls[1]++).start();
    await inngest.send(Array.from({ length: 30 }, (_, i) => ({ name: "test/busy", data: { i } })));
    await Promise.all([first.drain({ timeoutMs: 60_000 }), second.drain({ timeoutMs: 60_000 })]);

    const runs = await env.database.prisma.jobRun.findMany({ where: { functionId: "svc-forge-t-busy" } });
    expect(runs).toHaveLength(30);
    expect(runs.every((run) => run.status === "completed")).toBe(true);
    expect(overlaps).toBe(0);
    expect(executions.size).toBe(90);
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
    expect(calls[0] + calls[1]).toBeGreaterThanOrEqual(120);
  });
});
