import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { withEnv } from "@/tests/support/env";
import { PEER_ADDRESS_HEADER } from "./client-address";
import { MemoryRateLimiter, SharedRateLimiter, requestRateLimiter } from "./rate-limit";

useTestEnvironment();

describe("MemoryRateLimiter", () => {
  it("counts per key and reports the window's reset", async () => {
    const limiter = new MemoryRateLimiter(2, 60_000);
    const first = await limiter.limit("a");
    await limiter.refund("a");
    expect((await limiter.limit("a")).remaining).toBe(1);
    expect(first).toMatchObject({ success: true, limit: 2, remaining: 1 });
    expect(first.reset).toBeGreaterThan(Date.now());
    expect((await limiter.limit("a")).remaining).toBe(0);
    expect((await limiter.limit("a")).success).toBe(false);
    expect((await limiter.limit("b")).success).toBe(true);
  });

  it("counts a bounded number of callers: past it, the longest-counted start afresh", async () => {
    const limiter = new MemoryRateLimiter(1, 60_000, "default", 3);
    for (const key of ["a", "b", "c", "d", "e"]) expect((await limiter.limit(key)).success).toBe(true);
    expect(limiter.size).toBe(3);
    expect((await limiter.limit("e")).success).toBe(false);
    expect((await limiter.limit("a")).success).toBe(true);
  });
});

describe("Upstash rate limiter", () => {
  // A stand-in for an unhealthy Upstash REST endpoint on 127.0.0.1: it records calls and fails them.
  const calls: Array<{ authorization?: string; body: string }> = [];
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        calls.push({ authorization: req.headers.authorization, body });
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "unavailable" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    delete process.env.UPSTASH_REDIS_REST_URL;
    delete process.env.UPSTASH_REDIS_REST_TOKEN;
    await new Promise((resolve) => server.close(resolve));
  });

  it("is used when both variables are set, and a failing Redis lets requests through", async () => {
    const user = await createTestUser();
    process.env.UPSTASH_REDIS_REST_URL = url;
    process.env.UPSTASH_REDIS_REST_TOKEN = "stub-token";
    expect(requestRateLimiter()).toBeInstanceOf(SharedRateLimiter);
    const res = await call("GET", "/api/users/me", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("1000");
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0].authorization).toBe("Bearer stub-token");
    expect(calls[0].body).toContain(`u:${user.id}`);
    delete process.env.UPSTASH_REDIS_REST_URL;
    expect(requestRateLimiter()).toBeInstanceOf(MemoryRateLimiter);
  });
});

describe("failed authentications", () => {
  const from = (address: string, token: string) =>
    call("GET", "/api/users/me", { token, headers: { [PEER_ADDRESS_HEADER]: address } });
  const randomToken = () => `svc_user_${randomBytes(24).toString("hex")}`;

  it("count against the caller's address: over the budget, 429 with Retry-After before any credential is looked up", async () => {
    const user = await createTestUser();
    await withEnv({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: "5" }, async () => {
      for (let i = 0; i < 5; i++) expect((await from("198.51.100.31", randomToken())).status).toBe(401);
      const refused = await from("198.51.100.31", randomToken());
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Refused before the lookup: even a valid credential from that address is not looked at.
      expect((await from("198.51.100.31", user.token)).status).toBe(429);
      // Other addresses, and valid credentials, are not affected.
      expect((await from("198.51.100.32", user.token)).status).toBe(200);
      expect((await from("198.51.100.32", randomToken())).status).toBe(401);
    });
  });
});
