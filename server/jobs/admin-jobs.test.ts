import { describe, expect, it } from "vitest";
import { inngest } from "@/server/jobs/client";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";

useTestEnvironment();

const broken = inngest.createFunction(
  { id: "t-broken", triggers: [{ event: "test/broken" }], retries: 1 },
  async ({ step }) => {
    await step.run("ok-step", () => "fine");
    await step.run("bad-step", () => {
      throw new Error("disk on fire");
    });
  },
);
const napper = inngest.createFunction({ id: "t-napper", triggers: [{ event: "test/nap" }] }, async ({ step }) => {
  await step.sleep("long-nap", "1d");
});

useTestJobs({ functions: [broken, napper] });
const admin = { headers: { "x-admin-api-key": TEST_ADMIN_KEY } };

describe("admin jobs routes", () => {
  it("lists runs with status, attempts and last error, filtered", async () => {
    await inngest.send({ name: "test/broken", data: {} });
    await drainJobs({ fastForward: true });
    await inngest.send({ name: "test/nap", data: {} });
    await drainJobs();

    const all = await call("GET", "/api/admin/jobs", admin);
    expect(all.status).toBe(200);
    expect(all.body.runs.map((run: { function: string }) => run.function).sort()).toEqual([
      "svc-forge-t-broken",
      "svc-forge-t-napper",
    ]);

    const failed = await call("GET", "/api/admin/jobs?status=failed", admin);
    expect(failed.body.runs).toHaveLength(1);
    expect(failed.body.runs[0]).toMatchObject({
      function: "svc-forge-t-broken",
      status: "failed",
      failedAttempts: 1,
      lastError: "disk on fire",
      event: { name: "test/broken" },
    });

    const byFunction = await call("GET", "/api/admin/jobs?function=t-napper&limit=1", admin);
    expect(byFunction.body.runs).toHaveLength(1);
    expect(byFunction.body.runs[0].function).toBe("svc-forge-t-napper");
  });

  it("shows one run with its steps", async () => {
    const failed = await call("GET", "/api/admin/jobs?status=failed", admin);
    const res = await call("GET", `/api/admin/jobs/${failed.body.runs[0].id}`, admin);
    expect(res.status).toBe(200);
    expect(res.body.run.steps).toMatchObject([
      { name: "ok-step", status: "completed", attempts: 1, error: null },
      { name: "bad-step", status: "failed", attempts: 2, error: "disk on fire" },
    ]);
    expect((await call("GET", "/api/admin/jobs/no-such-run", admin)).status).toBe(404);
  });

  it("cancels a run that has not ended, once", async () => {
    const sleeping = await call("GET", "/api/admin/jobs?status=sleeping", admin);
    expect(sleeping.body.runs).toHaveLength(1);
    const id = sleeping.body.runs[0].id;
    const cancelled = await call("POST", `/api/admin/jobs/${id}/cancel`, admin);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.run).toMatchObject({ status: "cancelled", lastError: "cancelled by an administrator" });
    const again = await call("POST", `/api/admin/jobs/${id}/cancel`, admin);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("JOB_ALREADY_ENDED");
    expect((await call("POST", "/api/admin/jobs/no-such-run/cancel", admin)).status).toBe(404);
  });

  it("rejects bad filters with 400", async () => {
    const res = await call("GET", "/api/admin/jobs?status=exploded", admin);
    expect(res.status).toBe(400);
    expect((await call("GET", "/api/admin/jobs?limit=0", admin)).status).toBe(400);
    expect((await call("GET", "/api/admin/jobs?before=", admin)).status).toBe(400);
    expect((await call("GET", "/api/admin/jobs?before=no-such-run", admin)).status).toBe(404);
  });

  it("pages newest first by a run id, missing and repeating none of the runs one send created together", async () => {
    await inngest.send([1, 2, 3, 4].map((n) => ({ name: "test/nap", data: { n } })));
    await drainJobs();
    const all = (await call("GET", "/api/admin/jobs?limit=200", admin)).body.runs.map((run: { id: string }) => run.id);
    const paged: string[] = [];
    let before = "";
    for (;;) {
      const page = await call("GET", `/api/admin/jobs?limit=1${before && `&before=${before}`}`, admin);
      expect(page.status).toBe(200);
      if (page.body.runs.length === 0) break;
      paged.push(page.body.runs[0].id);
      before = page.body.runs[0].id;
    }
    expect(paged).toEqual(all);
    expect(all.length).toBeGreaterThanOrEqual(6);
  });

  it("is for administrators only", async () => {
    expect((await call("GET", "/api/admin/jobs")).status).toBe(401);
    const user = await createTestUser();
    const res = await call("GET", "/api/admin/jobs", { token: user.token });
    expect(res.status).toBe(403);
  });
});
