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
  let down = false;
  // Settles at the first connection or the first failure: until then commands wait, after it they never do.
  let settle = () => {};
  const firstAttempt = new Promise<void>((resolve) => (settle = resolve));
  // Imported when configured: node-redis is ~480 modules, loaded by every route's copy of this area.
  const connecting = import("@redis/client").then(({ createClient }) => {
    const client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 1_000, reconnectStrategy: reconnectDelay },
    });
    client.on("error", (error: Error) => {
      settle();
      if (!down)
        log().warn(
          { err: error.message },
          "redis unavailable; shared rate limits let requests through until it is back",
        );
      down = true;
    });
    client.on("ready", () => {
      settle();
      if (down) log().info("redis connection restored");
      down = false;
    });
    // A failed connection is reported by the "error" events above; the client goes on trying.
    client.connect().catch(() => undefined);
    return client;
  });
  const args = (values: unknown[]) => values.map(String);
  const ready = async () => {
    const client = await connecting;
    if (!client.isReady) await firstAttempt;
    return client;
  };
  return {
    kind: "redis",
    key: `redis|${url}`,
    scripts: {
      evalsha: async (sha, keys, values) => (await ready()).evalSha(sha, { keys, arguments: args(values) }),
      eval: async (script, keys, values) => (await ready()).eval(script, { keys, arguments: args(values) }),
    },
    async ping() {
      await (await ready()).ping();
    },
    async close() {
      const client = await connecting;
      if (client.isOpen) client.destroy();
    },
  };
}

function upstashRest(url: string, token: string): SharedRedis {
  const connecting = import("@upstash/redis").then(({ Redis }) => new Redis({ url, token, retry: false }));
  return {
    kind: "upstash",
    key: `upstash|${url}|${token}`,
    scripts: {
      evalsha: async (sha, keys, values) => (await connecting).evalsha(sha, keys, values),
      eval: async (script, keys, values) => (await connecting).eval(script, keys, values),
    },
    async ping() {
      await (await connecting).ping();
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
