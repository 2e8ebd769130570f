import { describe, expect, it } from "vitest";
import { TEST_ADMIN_KEY, useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";

useTestEnvironment();

describe("POST /api/admin/users", () => {
  it("creates a user and returns its legacy token once", async () => {
    const res = await call("POST", "/api/admin/users", {
      body: { username: "alice" },
      headers: { "x-admin-api-key": TEST_ADMIN_KEY },
    });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ username: "alice" });
    expect(res.body.token).toMatch(/^svc_user_/);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses a wrong administrator key with 401 and no code", async () => {
    const res = await call("POST", "/api/admin/users", {
      body: { username: "bob" },
      headers: { "x-admin-api-key": "wrong" },
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBeUndefined();
  });

  it("refuses anonymous callers with 401", async () => {
    const res = await call("POST", "/api/admin/users", { body: { username: "bob" } });
    expect(res.status).toBe(401);
  });

  it("rejects invalid usernames with 400 and a taken one with 409", async () => {
    const bad = await call("POST", "/api/admin/users", {
      body: { username: "no spaces" },
      headers: { "x-admin-api-key": TEST_ADMIN_KEY },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/username/);
    const again = await call("POST", "/api/admin/users", {
      body: { username: "alice" },
      headers: { "x-admin-api-key": TEST_ADMIN_KEY },
    });
    expect(again.status).toBe(409);
  });

  it("a plain user's token is not an administrator", async () => {
    const created = await call("POST", "/api/admin/users", {
      body: { username: "carol" },
      headers: { "x-admin-api-key": TEST_ADMIN_KEY },
    });
    const res = await call("POST", "/api/admin/users", { body: { username: "dave" }, token: created.body.token });
    expect(res.status).toBe(403);
  });
});
