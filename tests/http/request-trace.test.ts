import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withLogLines } from "@/tests/support/log-lines";
import { createTestUser } from "@/tests/support/users";
import { withEnv } from "@/tests/support/env";
import { log } from "@/server/log";
import { sharedRedis } from "@/server/http";
import { projectWith, workspaceOf } from "@/server/changes/test-fixtures";

/**
 * Every surface answers with an X-Request-Id (a valid incoming one echoed) and writes one request
 * line to the log naming its route pattern: plain routes, /mcp (with the tools it called), OAuth,
 * discovery, git, and REST refusals before routing.
 */
useTestEnvironment();

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

/** The log line of the request with this id (each request is sent with its own). */
const lineOf = (lines: Array<Record<string, any>>, requestId: string) =>
  lines.filter((line) => line.msg === "request" && line.requestId === requestId);

describe("X-Request-Id and the request log on every surface", () => {
  it("plain routes, discovery, OAuth and /mcp refusals answer with the id and log one line with their route", async () => {
    const cases: Array<{
      method: string;
      path: string;
      route: string;
      status: number;
      body?: unknown;
      form?: Record<string, string>;
    }> = [
      { method: "GET", path: "/health", route: "/health", status: 200 },
      { method: "GET", path: "/api/openapi.json", route: "/api/openapi.json", status: 200 },
      {
        method: "POST",
        path: "/mcp",
        route: "/mcp",
        status: 401,
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      },
      { method: "GET", path: "/mcp", route: "/mcp", status: 405 },
      { method: "DELETE", path: "/mcp", route: "/mcp", status: 405 },
      {
        method: "GET",
        path: "/.well-known/oauth-authorization-server",
        route: "/.well-known/oauth-authorization-server",
        status: 200,
      },
      {
        method: "GET",
        path: "/.well-known/oauth-protected-resource/mcp",
        route: "/.well-known/oauth-protected-resource",
        status: 200,
      },
      {
        method: "POST",
        path: "/oauth/token",
        route: "/oauth/token",
        status: 401,
        form: { grant_type: "authorization_code", code: "nope" },
      },
      { method: "POST", path: "/oauth/register", route: "/oauth/register", status: 400, body: { redirect_uris: [] } },
      { method: "GET", path: "/oauth/authorize?client_id=nobody", route: "/oauth/authorize", status: 400 },
      { method: "POST", path: "/oauth/revoke", route: "/oauth/revoke", status: 401, form: { token: "svc_oauth_nope" } },
    ];
    await withLogLines(async (lines) => {
      for (const [index, entry] of cases.entries()) {
        const requestId = `trace-plain-${index}`;
        const res = await call(entry.method, entry.path, {
          body: entry.body,
          form: entry.form,
          headers: { "x-request-id": requestId },
        });
        const what = `${entry.method} ${entry.path}`;
        expect(res.status, what).toBe(entry.status);
        expect(res.headers.get("x-request-id"), what).toBe(requestId);
        expect(lineOf(lines, requestId), what).toEqual([
          expect.objectContaining({
            method: entry.method,
            route: entry.route,
            status: entry.status,
            identity: "anonymous",
          }),
        ]);
      }
      // No incoming id (or one that could forge a log line): a fresh one.
      const fresh = await call("GET", "/health", { headers: { "x-request-id": "bad id <forged>" } });
      expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  it("an MCP call logs the tool it ran and the caller's identity kind", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await withLogLines(async (lines) => {
      const res = await call("POST", "/mcp", {
        token: alice.token,
        headers: { ...MCP_HEADERS, "x-request-id": "trace-mcp-1" },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "get_project", arguments: { project: project.path } },
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBeFalsy();
      expect(res.headers.get("x-request-id")).toBe("trace-mcp-1");
      expect(lineOf(lines, "trace-mcp-1")).toEqual([
        expect.objectContaining({ route: "/mcp", status: 200, identity: "user", tools: ["get_project"] }),
      ]);
      const text = JSON.stringify(lines);
      expect(text).not.toContain(alice.token);
    });
  });

  it("git answers carry the id and log the route pattern, never the project", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    await withLogLines(async (lines) => {
      const res = await call("GET", `/${project.path}.git/info/refs?service=git-upload-pack`, {
        token: alice.token,
        headers: { "x-request-id": "trace-git-1" },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-request-id")).toBe("trace-git-1");
      expect(lineOf(lines, "trace-git-1")).toEqual([
        expect.objectContaining({ route: "/@{namespace}/{slug}.git/info/refs", status: 200, identity: "user" }),
      ]);
      expect(JSON.stringify(lineOf(lines, "trace-git-1"))).not.toContain(project.path);
    });
  });

  it("a REST request refused with 401 is logged with the route it was refused at", async () => {
    await withLogLines(async (lines) => {
      const res = await call("GET", "/api/projects/@someone/thing/files", {
        token: "svc_user_not-a-real-token",
        headers: { "x-request-id": "trace-401" },
      });
      expect(res.status).toBe(401);
      expect(lineOf(lines, "trace-401")).toEqual([
        expect.objectContaining({ route: "/api/projects/{namespace}/{slug}/files", status: 401 }),
      ]);
    });
  });
});

describe("log lines written inside a request", () => {
  it("name the request's id; once the request has ended, what it started names none", async () => {
    const alice = await createTestUser();
    await withLogLines(async (lines) => {
      // A Redis that refuses connections: the shared limiter logs from inside the admission gate and lets the request through.
      await withEnv({ REDIS_URL: "redis://127.0.0.1:1" }, async () => {
        const res = await call("GET", "/api/users/me", {
          token: alice.token,
          headers: { "x-request-id": "deep-line-1" },
        });
        expect(res.status).toBe(200);
        const deep = lines.filter((line) => line.msg !== "request" && line.requestId === "deep-line-1");
        expect(deep.map((line) => line.msg)).toContain("rate limiter unavailable; letting requests through");
        expect(deep.every((line) => line.level === 40)).toBe(true);
        const after = lines.length;
        log().warn("a line after the request");
        expect(lines.slice(after)).toEqual([expect.not.objectContaining({ requestId: expect.anything() })]);
        await sharedRedis()?.close();
      });
    });
  });
});

describe("what a request waited on", () => {
  it("a commit's line, by REST or tRPC, counts its ref lock, its statements and their time", async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "README.md": "hi\n" });
    const workspace = await workspaceOf(alice.token, project);
    await withLogLines(async (lines) => {
      const res = await call("POST", `/api/workspaces/${workspace}/commit`, {
        token: alice.token,
        headers: { "x-request-id": "waits-1" },
        body: { projectId: project.id, message: "work", files: { "a.txt": "a\n" } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const [line] = lineOf(lines, "waits-1");
      expect(line.locks).toBeGreaterThanOrEqual(1);
      expect(line.lockMs).toBeGreaterThanOrEqual(0);
      expect(line.dbCalls).toBeGreaterThanOrEqual(3);
      expect(line.dbMs).toBeGreaterThan(0);
      expect(line.dbMs).toBeLessThanOrEqual(line.durationMs);
      // The same through tRPC: its line counts them too.
      const typed = await call("POST", "/api/trpc/workspaces.commit", {
        token: alice.token,
        headers: { "x-request-id": "waits-trpc" },
        body: { name: workspace, projectId: project.id, message: "more", files: { "b.txt": "b\n" } },
      });
      expect(typed.status, JSON.stringify(typed.body)).toBe(200);
      const [typedLine] = lineOf(lines, "waits-trpc");
      expect(typedLine).toMatchObject({ route: "/api/trpc/{procedures}", locks: 1 });
      expect(typedLine.dbCalls).toBeGreaterThanOrEqual(3);
      const health = await call("GET", "/health", { headers: { "x-request-id": "waits-2" } });
      expect(health.status).toBe(200);
      expect(lineOf(lines, "waits-2")[0]).not.toHaveProperty("lockMs");
    });
  });
});
