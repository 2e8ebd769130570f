import { createClient } from "@redis/client";
import { Redis as UpstashRedis } from "@upstash/redis";
import { config } from "@/server/config";
import { log } from "@/server/log";

/**
 * What the instances share through Redis (the rate limits), reached either by REDIS_URL with
 * node-redis, or by Upstash's REST protocol (UPSTASH_REDIS_REST_URL and _TOKEN); REDIS_URL wins
 * when both are set. `@upstash/ratelimit` calls only `evalsha` and, on NOSCRIPT, `eval`, with
 * Upstash's signature `(script, keys, args)`: `ScriptRunner` is that interface, and node-redis is
 * adapted to it.
 */
export interface ScriptRunner {
  evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown>;
  eval(script: string, keys: string[], args: unknown[]): Promise<unknown>;
}

export interface SharedRedis {
  /** What the configuration names: `redis` (REDIS_URL) or `upstash` (REST). */
  kind: "redis" | "upstash";
  /** A key that changes whenever the connection settings do. */
  key: string;
  scripts: ScriptRunner;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** How long a lost connection waits before it tries again: 50 ms doubling to 2 s, forever. */
const reconnectDelay = (retries: number) => Math.min(50 * 2 ** retries, 2_000);

/**
 * A node-redis connection. Commands are refused at once while it is down (no offline queue), so the
 * limiter fails open without waiting; it reconnects by itself, and the first error of an outage is
 * logged (not every retry's).
 */
export function connectRedis(url: string): SharedRedis {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 1_000, reconnectStrategy: reconnectDelay },
  });
  let down = false;
  // Settles at the first connection or the first failure: until then commands wait, after it they never do.
  let settle = () => {};
  const firstAttempt = new Promise<void>((resolve) => (settle = resolve));
  client.on("error", (error: Error) => {
    settle();
    if (!down)
      log().warn({ err: error.message }, "redis unavailable; shared rate limits let requests through until it is back");
    down = true;
  });
  client.on("ready", () => {
    settle();
    if (down) log().info("redis connection restored");
    down = false;
  });
  // A failed connection is reported by the "error" events above; the client goes on trying.
  client.connect().catch(() => undefined);
  const args = (values: unknown[]) => values.map(String);
  const ready = async () => {
    if (!client.isReady) await firstAttempt;
  };
  return {
    kind: "redis",
    key: `redis|${url}`,
    scripts: {
      evalsha: async (sha, keys, values) => (await ready(), client.evalSha(sha, { keys, arguments: args(values) })),
      eval: async (script, keys, values) => (await ready(), client.eval(script, { keys, arguments: args(values) })),
    },
    async ping() {
      await ready();
      await client.ping();
    },
    async close() {
      if (client.isOpen) client.destroy();
    },
  };
}

function upstashRest(url: string, token: string): SharedRedis {
  const redis = new UpstashRedis({ url, token, retry: false });
  return {
    kind: "upstash",
    key: `upstash|${url}|${token}`,
    scripts: redis,
    async ping() {
      await redis.ping();
    },
    async close() {},
  };
}

const holder = globalThis as unknown as { __svcSharedRedis?: SharedRedis };

/** The process's shared Redis as configured, or undefined (each instance then counts alone). */
export function sharedRedis(): SharedRedis | undefined {
  const url = config.redisUrl;
  const restUrl = config.redisRestUrl;
  const restToken = config.redisRestToken;
  const key = url ? `redis|${url}` : restUrl && restToken ? `upstash|${restUrl}|${restToken}` : undefined;
  const current = holder.__svcSharedRedis;
  if (current?.key === key) return current;
  void current?.close();
  holder.__svcSharedRedis = url
    ? connectRedis(url)
    : restUrl && restToken
      ? upstashRest(restUrl, restToken)
      : undefined;
  return holder.__svcSharedRedis;
}
