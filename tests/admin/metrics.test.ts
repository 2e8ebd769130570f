import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { runSvcCommand } from "@/server/users/cli";
import { FAILURE_CATEGORIES } from "@/server/providers";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment();

const ADMIN = { "x-admin-api-key": TEST_ADMIN_KEY };

interface Family {
  name: string;
  type: string;
  samples: Array<{ name?: string; labels: Record<string, string>; value: number }>;
}

async function scrapeJson(): Promise<Map<string, Family>> {
  const res = await call("GET", "/api/admin/metrics", { headers: { ...ADMIN, accept: "application/json" } });
  expect(res.status).toBe(200);
  return new Map((res.body.metrics as Family[]).map((family) => [family.name, family]));
}

const sample = (family: Family | undefined, labels: Record<string, string>) =>
  family?.samples.find((s) => !s.name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    ?.value ?? 0;

describe("GET /api/admin/metrics", () => {
  it("counts known traffic by route pattern and reads database gauges at scrape time", async () => {
    const before = await scrapeJson();
    const owner = await createTestUser();
    const pub = await createTestProject(owner.token, { name: "seen", visibility: "public" });
    await createTestProject(owner.token, { name: "hidden" });
    for (let i = 0; i < 3; i++)
      expect((await call("GET", `/api/projects/${pub.path}`, { token: owner.token })).status).toBe(200);
    expect((await call("GET", `/api/projects/${pub.path}/issues/999`, { token: owner.token })).status).toBe(404);
    expect(
      (await call("POST", `/api/projects/${pub.path}/issues`, { token: owner.token, body: { title: "one" } })).status,
    ).toBe(201);

    const after = await scrapeJson();
    const requests = after.get("svc_http_requests_total");
    const route = "/api/projects/{namespace}/{slug}";
    const delta = (labels: Record<string, string>) =>
      sample(requests, labels) - sample(before.get("svc_http_requests_total"), labels);
    expect(delta({ method: "GET", route, status: "200" })).toBe(3);
    expect(delta({ method: "GET", route: `${route}/issues/{number}`, status: "404" })).toBe(1);
    expect(requests!.samples.some((s) => s.labels.route?.includes("@"))).toBe(false);
    const durations = after.get("svc_http_request_duration_seconds")!;
    expect(durations.type).toBe("histogram");
    expect(
      durations.samples.find((s) => s.name === "svc_http_request_duration_seconds_count" && s.labels.route === route)
        ?.value,
    ).toBeGreaterThanOrEqual(3);

    expect(
      sample(after.get("svc_projects"), { visibility: "public" }) -
        sample(before.get("svc_projects"), { visibility: "public" }),
    ).toBe(1);
    expect(
      sample(after.get("svc_projects"), { visibility: "private" }) -
        sample(before.get("svc_projects"), { visibility: "private" }),
    ).toBe(1);
    expect(sample(after.get("svc_users"), {}) - sample(before.get("svc_users"), {})).toBe(1);
    expect(sample(after.get("svc_issues"), { status: "open" })).toBe(1);
    expect(sample(after.get("svc_issues"), { status: "closed" })).toBe(0);
  });

  it("reports every import failure category and the other families, even at zero", async () => {
    const families = await scrapeJson();
    const imports = families.get("svc_imports_failed_total")!;
    expect(imports.type).toBe("counter");
    expect(imports.samples.map((s) => s.labels.category).sort()).toEqual([...FAILURE_CATEGORIES].sort());
    for (const name of [
      "svc_changes",
      "svc_webhook_deliveries_total",
      "svc_deployments",
      "svc_jobs",
      "svc_job_queue_oldest_due_seconds",
      "svc_git_requests_total",
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    expect(sample(families.get("svc_changes"), { status: "merged" })).toBe(0);
  });

  it("reads how long the oldest due job run has waited, and ignores runs not yet due", async () => {
    // A run row as the executor would queue it (no executor runs in this file, so it stays queued).
    const run = (id: string, availableAt: Date) => ({
      id,
      functionId: "svc-metrics-test",
      status: "queued" as const,
      event: {},
      maxAttempts: 1,
      availableAt,
    });
    const prisma = await db();
    await prisma.jobRun.create({ data: run("run_future", new Date(Date.now() + 3_600_000)) });
    expect(sample((await scrapeJson()).get("svc_job_queue_oldest_due_seconds"), {})).toBe(0);
    await prisma.jobRun.create({ data: run("run_overdue", new Date(Date.now() - 120_000)) });
    const waited = sample((await scrapeJson()).get("svc_job_queue_oldest_due_seconds"), {});
    expect(waited).toBeGreaterThanOrEqual(120);
    expect(waited).toBeLessThan(180);
    await prisma.jobRun.deleteMany({ where: { functionId: "svc-metrics-test" } });
  });

  it("answers the Prometheus text exposition by default", async () => {
    const res = await call("GET", "/api/admin/metrics", { headers: ADMIN });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toMatch(/^# HELP svc_users /m);
    expect(res.text).toMatch(/^# TYPE svc_http_request_duration_seconds histogram$/m);
    expect(res.text).toMatch(/^svc_imports_failed_total\{category="GIT_ERROR"\} 0$/m);
  });

  it("carries the process and Node.js families a Node dashboard reads (prom-client's defaults)", async () => {
    const res = await call("GET", "/api/admin/metrics", { headers: ADMIN });
    for (const name of [
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "process_start_time_seconds",
      "process_open_fds",
      "nodejs_heap_size_used_bytes",
      "nodejs_eventloop_lag_seconds",
      "nodejs_active_handles_total",
    ]) {
      expect(res.text, name).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? [0-9.e+-]+$`, "m"));
    }
    expect(res.text).toMatch(new RegExp(`^nodejs_version_info\\{version="${process.version}",.*\\} 1$`, "m"));
    const families = await scrapeJson();
    expect(sample(families.get("process_resident_memory_bytes"), {})).toBeGreaterThan(0);
    // One registry per process however many module copies ask for it: each family is there once.
    expect(res.text.match(/^# TYPE process_cpu_seconds_total /gm)).toHaveLength(1);
  });

  it("is for administrators' direct credentials only", async () => {
    expect((await call("GET", "/api/admin/metrics")).status).toBe(401);
    const plain = await createTestUser();
    expect((await call("GET", "/api/admin/metrics", { token: plain.token })).status).toBe(403);
    const admin = await call("POST", "/api/admin/users", {
      headers: ADMIN,
      body: { username: "metricsroot", isAdmin: true },
    });
    expect((await call("GET", "/api/admin/metrics", { token: admin.body.token })).status).toBe(200);
    const grant = ((await runSvcCommand(["oauth:grant", "metricsroot", "--scope", "read"])) as { token: string }).token;
    for (const accept of ["text/plain", "application/json"]) {
      const refused = await call("GET", "/api/admin/metrics", { token: grant, headers: { accept } });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("ADMIN_REQUIRES_DIRECT_CREDENTIAL");
    }
  });
});
