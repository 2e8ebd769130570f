import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";

useTestEnvironment();

describe("HEAD and unsupported methods", () => {
  it("HEAD answers what GET would, without a body", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "heady" });
    for (const path of ["/api/users/me", `/api/projects/${project.path}`, "/api/projects/@nobody/none"]) {
      const get = await call("GET", path, { token: alice.token });
      const head = await call("HEAD", path, { token: alice.token });
      expect(head.status).toBe(get.status);
      expect(head.text).toBe("");
      expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    }
  });

  it("a method no route serves at an existing path is a 405 with Allow", async () => {
    const alice = await createTestUser();
    const project = await createTestProject(alice.token, { name: "methods" });
    const put = await call("PUT", "/api/users/me", { token: alice.token, body: {} });
    expect(put.status).toBe(405);
    expect(put.body).toEqual({ error: "Method not allowed" });
    expect(put.headers.get("allow")?.split(", ")).toEqual(expect.arrayContaining(["GET", "HEAD", "DELETE"]));
    const put2 = await call("PUT", `/api/projects/${project.path}`, { token: alice.token, body: {} });
    expect(put2.status).toBe(405);
    expect(put2.headers.get("allow")?.split(", ")).toEqual(expect.arrayContaining(["GET", "PATCH"]));
    expect((await call("PUT", "/api/no/such/route", { token: alice.token, body: {} })).status).toBe(404);
  });
});

describe("malformed URLs are the client's error", () => {
  it.each([
    ["GET", "/api/projects/%ff/x"],
    ["GET", "/api/changes/%zz"],
    ["GET", "/api/changes/chg%00"],
    ["GET", "/api/projects/@someone/a%00b"],
    ["GET", "/api/projects?x=%e0%a4"],
    ["GET", "/api/admin/jobs?status=a%00"],
    ["POST", "/api/projects/%c0%80/x/issues"],
  ])("%s %s is a 400", async (method, path) => {
    const alice = await createTestUser();
    const res = await call(method, path, { token: alice.token, body: method === "POST" ? { title: "t" } : undefined });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });
});
