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

async function heldRun(id: string, owner: string, leaseExpiresAt = new Date(Date.now() + 60_000)) {
  await env.database.prisma.jobRun.create({
    data: {
      id,
      functionId: "svc-forge-t-batch",
      status: "running",
      event: {},
      maxAttempts: 1,
      availableAt: new Date(),
      leaseOwner: owner,
      leaseExpiresAt,
    },
  });
}

async function queuedRun(id: string, functionId: string, availableAt: Date) {
  await env.database.prisma.jobRun.create({
    data: { id, functionId, status: "queued", event: { id }, maxAttempts: 1, availableAt },
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
    const runs = await env.database.prisma.jobRun.findMany({
      where: { id: { startsWith: "batch-" } },
      orderBy: { id: "asc" },
    });
    expect(runs.map((run) => [run.id, run.status, run.leaseOwner, run.output])).toEqual([
      ["batch-done", "completed", null, { ok: true }],
      ["batch-held", "running", "owner-a", null],
      ["batch-lost", "running", "owner-b", null],
    ]);
  });

  it("leases due runs in the statement that completes others, oldest first, never one it writes", async () => {
    const minute = 60_000;
    // Its own lease expired (so it is due), but it is in the batch: it is completed, not claimed.
    await heldRun("claim-completing", "owner-c", new Date(Date.now() - minute));
    await env.database.prisma.jobRun.update({
      where: { id: "claim-completing" },
      data: { availableAt: new Date(Date.now() - 10 * minute) },
    });
    await queuedRun("claim-newer", "svc-forge-t-claim", new Date(Date.now() - minute));
    await queuedRun("claim-oldest", "svc-forge-t-claim", new Date(Date.now() - 3 * minute));
    await queuedRun("claim-older", "svc-forge-t-claim", new Date(Date.now() - 2 * minute));
    await queuedRun("claim-later", "svc-forge-t-claim", new Date(Date.now() + minute));
    await queuedRun("claim-other", "svc-forge-t-other", new Date(Date.now() - 4 * minute));
    const claims: Array<string[] | null> = [];
    const claimer = {
      request: (completes: number) => ({
        limit: completes + 1,
        functionIds: ["svc-forge-t-batch", "svc-forge-t-claim"],
        leaseMs: minute,
      }),
      claimed: (runs: Array<{ id: string; event: unknown; steps: unknown[] }> | null) =>
        claims.push(runs && runs.map((run) => run.id)),
    };
    const commit = new GroupCommit(jobs(), "owner-c", () => new Date(), claimer);
    expect(await commit.write({ runId: "claim-completing", kind: "complete", output: null })).toBe(true);
    expect(claims).toEqual([["claim-oldest", "claim-older"]]);
    const runs = await env.database.prisma.jobRun.findMany({
      where: { id: { startsWith: "claim-" } },
      orderBy: { id: "asc" },
    });
    expect(runs.map((run) => [run.id, run.status, run.leaseOwner])).toEqual([
      ["claim-completing", "completed", null],
      ["claim-later", "queued", null],
      ["claim-newer", "queued", null],
      ["claim-older", "running", "owner-c"],
      ["claim-oldest", "running", "owner-c"],
      ["claim-other", "queued", null],
    ]);
  });

  it("a write the database refuses fails its own run only; the others of its batch complete", async () => {
    const ran = new Map<number, number>();
    const mixed = inngest.createFunction(
      { id: "t-mixed-batch", triggers: [{ event: "test/mixed-batch" }] },
      async ({ event, step }) => {
        const n = event.data.n as number;
        // A NUL character is valid JSON but refused by PostgreSQL's jsonb.
        const value = await step.run(
          "value",
          () => (ran.set(n, (ran.get(n) ?? 0) + 1), n === 3 ? "bad\u0000value" : `ok ${n}`),
        );
        return { value };
      },
    );
    const executor = new EmbeddedExecutor({
      functions: [mixed],
      clock: new TestClock(),
      autoRun: false,
      concurrency: 8,
    });
    executors.push(await executor.start());
    await inngest.send(Array.from({ length: 6 }, (_, n) => ({ name: "test/mixed-batch", data: { n } })));
    await executor.drain();
    const runs = await env.database.prisma.jobRun.findMany({ where: { functionId: "svc-forge-t-mixed-batch" } });
    const byN = new Map(runs.map((run) => [(run.event as { data: { n: number } }).data.n, run]));
    for (const n of [0, 1, 2, 4, 5])
      expect(byN.get(n)).toMatchObject({ status: "completed", output: { value: `ok ${n}` } });
    // Its step result was never stored: the run stays leased and runs the step again once the lease expires.
    expect(byN.get(3)).toMatchObject({ status: "running" });
    expect(await env.database.prisma.jobStep.count({ where: { runId: byN.get(3)!.id } })).toBe(0);
    expect([...ran.values()].every((count) => count === 1)).toBe(true);
  });
});
