import { describe, expect, it } from "vitest";
import { database } from "@/server/db";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment();

const ADMIN = { "x-admin-api-key": TEST_ADMIN_KEY };

interface Report {
  memory: Record<string, number | null>;
  caches: Array<{ name: string; entries: number; limit: number | null; unit: string; bound: string; misses?: number }>;
}

async function report(): Promise<Report> {
  const res = await call("GET", "/api/admin/caches", { headers: ADMIN });
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return res.body as Report;
}

describe("GET /api/admin/caches", () => {
  it("reports the process's memory, the embedded database's apart, and each cache's size against its bound", async () => {
    const owner = await createTestUser();
    const project = await createTestProject(owner.token, { name: "cached", files: { "a/b.txt": "b\n" } });
    expect((await call("GET", `/api/projects/${project.path}/files`, { token: owner.token })).status).toBe(200);
    const { memory, caches } = await report();
    expect(memory.rssBytes).toBeGreaterThan(memory.heapUsedBytes!);
    expect(memory.heapTotalBytes).toBeGreaterThanOrEqual(memory.heapUsedBytes!);
    if ((await database()).kind === "pglite") {
      expect(memory.databaseWasmBytes).toBeGreaterThan(16 * 2 ** 20);
      expect(memory.databaseHeapUsedBytes).toBeGreaterThan(0);
    } else {
      expect(memory.databaseWasmBytes).toBeNull();
    }
    const byName = new Map(caches.map((cache) => [cache.name, cache]));
    for (const name of [
      "git.parsedObjects",
      "git.commitHeaders",
      "git.packReads",
      "access.grants",
      "auth.credentials",
      "changes.openStreams",
      "mcp.sessions",
      "http.rateLimitWindows",
    ]) {
      expect(byName.has(name), name).toBe(true);
      expect(byName.get(name)!.bound.length).toBeGreaterThan(0);
    }
    const parsed = byName.get("git.parsedObjects")!;
    expect(parsed.entries).toBeGreaterThan(0);
    expect(parsed.entries).toBeLessThanOrEqual(parsed.limit!);
    expect(parsed.misses).toEqual(expect.any(Number));
    expect(byName.get("auth.credentials")).not.toHaveProperty("misses");
    expect(byName.get("auth.credentials")!.entries).toBeGreaterThan(0);
  });

  it("is for administrators only", async () => {
    expect((await call("GET", "/api/admin/caches")).status).toBe(401);
    const plain = await createTestUser();
    expect((await call("GET", "/api/admin/caches", { token: plain.token })).status).toBe(403);
  });
});
