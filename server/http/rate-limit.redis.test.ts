// The shared rate limit against a real Redis (Debian's redis-server) reached through the Upstash
// REST protocol, as an operator with this stack runs it (tests/support/upstash-redis.ts). .ci/run
// installs redis-server; where it is missing these tests are skipped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { redisServerInstalled, startUpstashRedis, type UpstashRedis } from "@/tests/support/upstash-redis";
import { UpstashRateLimiter, requestRateLimiter } from "./rate-limit";

useTestEnvironment();

describe.runIf(redisServerInstalled)("the shared rate limit on a real Redis", () => {
  let redis: UpstashRedis;

  beforeAll(async () => {
    redis = await startUpstashRedis();
  });

  afterAll(async () => {
    await redis?.close();
  });

  it("is one budget for two instances", async () => {
    // Two limiters with their own Upstash clients stand for two server processes.
    const first = new UpstashRateLimiter(5, redis.url, redis.token);
    const second = new UpstashRateLimiter(5, redis.url, redis.token);
    const key = `u:shared-${Date.now()}`;
    const results = [];
    for (const limiter of [first, second, first, second, first, second]) results.push(await limiter.limit(key));
    expect(results.map((r) => r.success)).toEqual([true, true, true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(await redis.command(["KEYS", `svc:ratelimit:${key}*`])).not.toEqual([]);
    expect((await new UpstashRateLimiter(5, redis.url, redis.token).limit(`u:other-${Date.now()}`)).success).toBe(true);
  });

  it("answers 429 with Retry-After through the API once the shared budget is spent", async () => {
    const user = await createTestUser();
    process.env.UPSTASH_REDIS_REST_URL = redis.url;
    process.env.UPSTASH_REDIS_REST_TOKEN = redis.token;
    process.env.RATE_LIMIT_PER_MINUTE = "3";
    expect(requestRateLimiter()).toBeInstanceOf(UpstashRateLimiter);
    // Another instance already spent one request of this user's budget.
    await new UpstashRateLimiter(3, redis.url, redis.token).limit(`u:${user.id}`);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("GET", "/api/users/me", { token: user.token })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await call("GET", "/api/users/me", { token: user.token });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  it("lets requests through when Redis is slow (past the 1 s timeout) or down", async () => {
    const key = `u:outage-${Date.now()}`;
    const spender = new UpstashRateLimiter(1, redis.url, redis.token);
    expect((await spender.limit(key)).success).toBe(true);
    expect((await spender.limit(key)).success).toBe(false);

    // Fresh instances: the spender itself remembers the key is blocked (the library's in-memory cache).
    redis.delayMs = 3000;
    const callsBefore = redis.calls;
    const slow = await new UpstashRateLimiter(1, redis.url, redis.token).limit(key);
    // The budget is spent, yet the request passes: the limiter stopped waiting for the slow Redis.
    expect(slow.success).toBe(true);
    expect(redis.calls).toBeGreaterThan(callsBefore);
    redis.delayMs = 0;

    await redis.stopRedis();
    expect(await new UpstashRateLimiter(1, redis.url, redis.token).limit(key)).toMatchObject({ success: true, limit: 1 });
  });
});
