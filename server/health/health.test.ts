import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { healthChecks, healthReport } from "./service";

useTestEnvironment();

describe("health", () => {
  it("GET /health answers status and service", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", service: "svc-forge" });
  });

  it("GET /api/health/simple carries a timestamp", async () => {
    const res = await call("GET", "/api/health/simple");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
    expect(Number.isNaN(Date.parse(res.body.timestamp))).toBe(false);
  });

  it("GET /api/health is healthy when every dependency answers", async () => {
    const res = await call("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("healthy");
    expect(res.body.checks.database.status).toBe("ok");
  });

  it("a queue-only failure is degraded with 200", async () => {
    const original = healthChecks.queue.run;
    healthChecks.queue.run = async () => {
      throw new Error("executor stalled");
    };
    try {
      const res = await call("GET", "/api/health");
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("degraded");
      expect(res.body.checks.queue).toMatchObject({ status: "failed", detail: "executor stalled" });
    } finally {
      healthChecks.queue.run = original;
    }
  });

  it("a critical failure is 503 with the same body", async () => {
    const original = healthChecks.database.run;
    healthChecks.database.run = async () => {
      throw new Error("database down");
    };
    try {
      const res = await call("GET", "/api/health");
      expect(res.status).toBe(503);
      expect(res.body.status).toBe("unhealthy");
      expect(res.body.checks.database.status).toBe("failed");
    } finally {
      healthChecks.database.run = original;
    }
  });

  it("a dependency that does not answer in time counts as failed", async () => {
    const original = healthChecks.database.run;
    healthChecks.database.run = () => new Promise(() => {});
    try {
      const report = await healthReport({ timeoutMs: 50 });
      expect(report.status).toBe("unhealthy");
      expect(report.checks.database).toMatchObject({ status: "failed", detail: "no answer within 50 ms" });
    } finally {
      healthChecks.database.run = original;
    }
  });

  it("unknown API routes answer a JSON 404", async () => {
    const res = await call("GET", "/api/no/such/route");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not found" });
  });

  it("serves an OpenAPI 3 document", async () => {
    const res = await call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.paths["/health"].get).toBeDefined();
  });
});
