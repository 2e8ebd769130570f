// The shared rate limit on a real Redis (Debian's redis-server) through REDIS_URL, as an operator
// runs it: node-redis under @upstash/ratelimit. .ci/run installs redis-server; where it is missing
// these tests are skipped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { withEnv } from "@/tests/support/env";
import { redisServerInstalled, startRedisServer, type RedisServer } from "@/tests/support/redis-server";
import { SharedRateLimiter, requestRateLimiter } from "./rate-limit";
import { connectRedis, sharedRedis, type SharedRedis } from "./shared-redis";

useTestEnvironment();

describe.runIf(redisServerInstalled)("the shared rate limit on a real Redis (REDIS_URL)", () => {
  let redis: RedisServer;
  const connections: SharedRedis[] = [];
  /** A limiter with its own connection: one server process. */
  const instance = (max: number) => {
    const connection = connectRedis(redis.url);
    connections.push(connection);
    return new SharedRateLimiter(max, connection.scripts, "svc:ratelimit", 86_400_000);
  };

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    await sharedRedis()?.close();
    await redis?.close();
  });

  it("is one budget for two instances", async () => {
    const first = instance(5);
    const second = instance(5);
    const key = `u:shared-${Date.now()}`;
    const results = [];
    for (const limiter of [first, second, first, second, first, second]) results.push(await limiter.limit(key));
    expect(results.map((r) => r.success)).toEqual([true, true, true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(await redis.command(["KEYS", `svc:ratelimit:${key}*`])).not.toEqual([]);
    expect((await first.limit(`u:other-${Date.now()}`)).success).toBe(true);
    // A refund gives one request back to every instance.
    await second.refund(key);
    expect((await instance(5).limit(key)).success).toBe(true);
  });

  it("answers 429 with Retry-After through the API once the shared budget is spent", async () => {
    const user = await createTestUser();
    await withEnv({ REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: "3" }, async () => {
      expect(requestRateLimiter()).toBeInstanceOf(SharedRateLimiter);
      expect(sharedRedis()?.kind).toBe("redis");
      // Another instance already spent one request of this user's budget.
      await instance(3).limit(`u:${user.id}`);
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await call("GET", "/api/users/me", { token: user.token })).status);
      expect(statuses).toEqual([200, 200, 429]);
      const refused = await call("GET", "/api/users/me", { token: user.token });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(refused.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
    });
  });

  it("fails open while Redis hangs or is gone, and counts again once it is back", async () => {
    const [spender, other] = [await createTestUser(), await createTestUser()];
    await withEnv({ REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: "2" }, async () => {
      const me = (user: { token: string }) => call("GET", "/api/users/me", { token: user.token });
      const health = async () =>
        (await call<{ checks: { keyValueStore: { status: string } } }>("GET", "/api/health")).body.checks.keyValueStore
          .status;
      expect([(await me(spender)).status, (await me(spender)).status, (await me(spender)).status]).toEqual([
        200, 200, 429,
      ]);

      // A Redis that stops answering: a fresh instance stops waiting after its 1 s timeout.
      redis.pause();
      expect(await instance(2).limit(`u:${spender.id}`)).toMatchObject({ success: true, limit: 2 });
      redis.resume();

      // Gone (and what it stored with it): requests pass meanwhile (fail open, as docs/api.md says).
      await redis.stop();
      expect((await me(other)).status).toBe(200);
      expect(await health()).toBe("failed");

      await redis.start();
      await expect.poll(health, { timeout: 10_000, interval: 100 }).toBe("ok");
      // Counting again on the same connection: the request made during the outage was not counted.
      expect([(await me(other)).status, (await me(other)).status, (await me(other)).status]).toEqual([200, 200, 429]);
    });
  });
});

describe("REDIS_URL", () => {
  it("wins over the Upstash REST pair when both are set", () =>
    withEnv(
      { REDIS_URL: "redis://127.0.0.1:1", UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1", UPSTASH_REDIS_REST_TOKEN: "t" },
      async () => {
        expect(sharedRedis()?.kind).toBe("redis");
        await sharedRedis()?.close();
      },
    ));
});
