import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { STALL_AFTER_MS, queueHealth } from "./health";

const env = useTestEnvironment();

describe("queue health", () => {
  it("is ok when nothing is overdue", async () => {
    expect(await queueHealth()).toMatchObject({ ok: true });
    const res = await call("GET", "/api/health");
    expect(res.body.checks.queue.status).toBe("ok");
  });

  it("degrades /api/health when due work waits longer than the stall threshold", async () => {
    const overdue = new Date(Date.now() - STALL_AFTER_MS - 1000);
    await env.database.prisma.jobRun.create({
      data: {
        id: "stalled-run",
        functionId: "svc-forge-x",
        status: "queued",
        event: { name: "x" },
        maxAttempts: 1,
        availableAt: overdue,
      },
    });
    const health = await queueHealth();
    expect(health.ok).toBe(false);
    expect(health.detail).toMatch(/executor stalled: 1 runs and 0 events overdue/);
    const res = await call("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("degraded");
    expect(res.body.checks.queue.status).toBe("failed");
  });
});
