import { afterAll, describe, expect, it } from "vitest";
import { inngest } from "@/server/jobs/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { TestClock } from "@/tests/support/jobs";
import { EmbeddedExecutor } from "./executor";
import { GroupCommit } from "./group-commit";

const env = useTestEnvironment();
const executors: EmbeddedExecutor[] = [];
afterAll(async () => {
  await Promise.all(executors.map((executor) => executor.stop()));
});

const jobs = () => ({ prisma: env.database.prisma, kind: env.database.kind });

async function heldRun(id: string, owner: string) {
  await env.database.prisma.jobRun.create({
    data: { id, functionId: "svc-forge-t-batch", status: "running", event: {}, maxAttempts: 1, availableAt: new Date(), leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + 60_000) },
  });
}

describe("group commit of the executor's writes", () => {
  it("writes the runs still held in one batch and nothing for a run whose lease was taken over", async () => {
    await heldRun("batch-held", "owner-a");
    await heldRun("batch-done", "owner-a");
    await heldRun("batch-lost", "owner-b");
    const commit = new GroupCommit(jobs(), "owner-a", () => new Date());
    const step = { stepId: "s1", name: "s1", type: "data" as const, data: { n: 1 }, attempts: 1 };
    const leaseExpiresAt = new Date(Date.now() + 60_000);
    const answers = await Promise.all([
      commit.write({ runId: "batch-held", kind: "steps", steps: [step], leaseExpiresAt }),
      commit.write({ runId: "batch-done", kind: "complete", output: { ok: true } }),
      commit.write({ runId: "batch-lost", kind: "steps", steps: [step], leaseExpiresAt }),
    ]);
    expect(answers).toEqual([true, true, false]);
    const steps = await env.database.prisma.jobStep.findMany({ where: { runId: { startsWith: "batch-" } } });
    expect(steps.map((row) => [row.runId, row.data])).toEqual([["batch-held", { n: 1 }]]);
    const runs = await env.database.prisma.jobRun.findMany({ where: { id: { startsWith: "batch-" } }, orderBy: { id: "asc" } });
    expect(runs.map((run) => [run.id, run.status, run.leaseOwner, run.output])).toEqual([
      ["batch-done", "completed", null, { ok: true }],
      ["batch-held", "running", "owner-a", null],
      ["batch-lost", "running", "owner-b", null],
    ]);
  });

  it("a write the database refuses fails its own run only; the others of its batch complete", async () => {
    const ran = new Map<number, number>();
    const mixed = inngest.createFunction({ id: "t-mixed-batch", triggers: [{ event: "test/mixed-batch" }] }, async ({ event, step }) => {
      const n = event.data.n as number;
      // A NUL character is valid JSON but refused by PostgreSQL's jsonb.
      const value = await step.run("value", () => (ran.set(n, (ran.get(n) ?? 0) + 1), n === 3 ? "bad\u0000value" : `ok ${n}`));
      return { value };
    });
    const executor = new EmbeddedExecutor({ functions: [mixed], clock: new TestClock(), autoRun: false, concurrency: 8 });
    executors.push(await executor.start());
    await inngest.send(Array.from({ length: 6 }, (_, n) => ({ name: "test/mixed-batch", data: { n } })));
    await executor.drain();
    const runs = await env.database.prisma.jobRun.findMany({ where: { functionId: "svc-forge-t-mixed-batch" } });
    const byN = new Map(runs.map((run) => [(run.event as { data: { n: number } }).data.n, run]));
    for (const n of [0, 1, 2, 4, 5]) expect(byN.get(n)).toMatchObject({ status: "completed", output: { value: `ok ${n}` } });
    // Its step result was never stored: the run stays leased and runs the step again once the lease expires.
    expect(byN.get(3)).toMatchObject({ status: "running" });
    expect(await env.database.prisma.jobStep.count({ where: { runId: byN.get(3)!.id } })).toBe(0);
    expect([...ran.values()].every((count) => count === 1)).toBe(true);
  });
});
