import type { Ratelimit } from "@upstash/ratelimit";
import { registerCache } from "@/server/caches";
import { config } from "@/server/config";
import { RATE_LIMIT_KEYS_MAX } from "@/server/limits";
import { log } from "@/server/log";
import { sharedRedis, type ScriptRunner } from "./shared-redis";
import { HttpError } from "./errors";

export interface RateLimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** Unix ms when the window resets. */
  reset: number;
  /** The quota policy that counted the request, and its window. */
  policy: string;
  windowMs: number;
}

export interface RateLimiter {
  /** The quota policy's name in the RateLimit-Policy and RateLimit fields. */
  readonly policy: string;
  readonly windowMs: number;
  limit(key: string): Promise<RateLimitResult>;
  /** Gives back one request counted by `limit` (a 304 does not spend the budget). */
  refund(key: string): Promise<void>;
}

/**
 * In-process sliding-window limiter with the semantics of @upstash/ratelimit's slidingWindow:
 * the previous window's count is weighted by how much of it still overlaps the sliding window.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; current: number; previous: number }>();

  constructor(
    private readonly max: number,
    readonly windowMs = config.rateLimitWindowMs,
    readonly policy = "default",
    private readonly keysMax = RATE_LIMIT_KEYS_MAX,
  ) {}

  /** Callers counted now. */
  get size(): number {
    return this.windows.size;
  }

  async limit(key: string): Promise<RateLimitResult> {
    const now = Date.now();
    const start = now - (now % this.windowMs);
    let entry = this.windows.get(key);
    if (!entry || entry.start !== start) {
      const previous = entry && entry.start === start - this.windowMs ? entry.current : 0;
      entry = { start, current: 0, previous };
      // Set anew, so the map's order is the order in which callers' windows started.
      this.windows.delete(key);
      this.windows.set(key, entry);
      if (this.windows.size > this.keysMax) this.evict(start);
    }
    const overlap = 1 - (now - start) / this.windowMs;
    const used = Math.floor(entry.previous * overlap) + entry.current;
    const counted = { limit: this.max, reset: start + this.windowMs, policy: this.policy, windowMs: this.windowMs };
    if (used >= this.max) return { success: false, remaining: 0, ...counted };
    entry.current += 1;
    return { success: true, remaining: Math.max(0, this.max - used - 1), ...counted };
  }

  async refund(key: string): Promise<void> {
    const entry = this.windows.get(key);
    if (entry && entry.current > 0) entry.current -= 1;
  }

  private evict(currentStart: number): void {
    for (const [key, value] of this.windows) if (value.start < currentStart - this.windowMs) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size <= this.keysMax) break;
      this.windows.delete(key);
    }
  }
}

/**
 * Limits shared by several instances: @upstash/ratelimit's sliding window over a Redis (REDIS_URL)
 * or Upstash's REST endpoint (`sharedRedis()`). When Redis does not answer within a second, fails,
 * or is down, the request is let through (fail open): a Redis outage must not take the API down.
 */
export class SharedRateLimiter implements RateLimiter {
  /** Imported when a shared limit is configured (a single instance never loads it). */
  private readonly ratelimit: Promise<Ratelimit>;
  private failing = false;

  constructor(
    private readonly max: number,
    redis: ScriptRunner,
    prefix = "svc:ratelimit",
    readonly windowMs = config.rateLimitWindowMs,
    readonly policy = "default",
  ) {
    this.ratelimit = import("@upstash/ratelimit").then(
      ({ Ratelimit }) =>
        new Ratelimit({
          // The library types its client as @upstash/redis, but calls only evalsha and eval (ScriptRunner).
          redis: redis as unknown as ConstructorParameters<typeof Ratelimit>[0]["redis"],
          limiter: Ratelimit.slidingWindow(max, `${windowMs} ms`),
          prefix,
          timeout: 1000,
        }),
    );
  }

  async limit(key: string): Promise<RateLimitResult> {
    let failure: string;
    try {
      const { success, limit, remaining, reset, reason } = await (await this.ratelimit).limit(key);
      if (reason !== "timeout") {
        if (this.failing) log().info({ policy: this.policy }, "rate limiter answering again");
        this.failing = false;
        return { success, limit, remaining, reset, policy: this.policy, windowMs: this.windowMs };
      }
      failure = "no answer within 1 s";
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    // Once per outage, not once per request.
    if (!this.failing)
      log().warn({ policy: this.policy, err: failure }, "rate limiter unavailable; letting requests through");
    this.failing = true;
    return this.open();
  }

  async refund(key: string): Promise<void> {
    // A refund that fails leaves one request counted: nothing to let through.
    await this.ratelimit.then((ratelimit) => ratelimit.limit(key, { rate: -1 })).catch(() => undefined);
  }

  private open(): RateLimitResult {
    return {
      success: true,
      limit: this.max,
      remaining: this.max,
      reset: Date.now() + this.windowMs,
      policy: this.policy,
      windowMs: this.windowMs,
    };
  }
}

type LimiterCache = Map<string, { limiter: RateLimiter; key: string }>;
const holder = globalThis as unknown as { __svcRateLimiters?: LimiterCache };
registerCache("http.rateLimitWindows", {
  entries: () =>
    [...(holder.__svcRateLimiters?.values() ?? [])].reduce(
      (sum, { limiter }) => sum + (limiter instanceof MemoryRateLimiter ? limiter.size : 0),
      0,
    ),
  limit: null,
  bound: "RATE_LIMIT_KEYS_MAX callers per policy (one limiter per policy), past windows dropped first",
});

/** The limiter of one policy, shared through Redis when configured, in-memory otherwise (rebuilt when the configuration changes). */
function limiterFor(policy: string, max: number, prefix: string): RateLimiter {
  const redis = sharedRedis();
  const windowMs = config.rateLimitWindowMs;
  const key = `${max}|${windowMs}|${redis?.key ?? ""}`;
  const limiters = (holder.__svcRateLimiters ??= new Map() as LimiterCache);
  const current = limiters.get(policy);
  if (current?.key === key) return current.limiter;
  const limiter = redis
    ? new SharedRateLimiter(max, redis.scripts, prefix, windowMs, policy)
    : new MemoryRateLimiter(max, windowMs, policy);
  limiters.set(policy, { limiter, key });
  return limiter;
}

/**
 * A process-wide limiter: for identities (RATE_LIMIT_PER_MINUTE) or for anonymous callers by
 * address (RATE_LIMIT_ANONYMOUS_PER_MINUTE).
 */
export function requestRateLimiter(callers: "identified" | "anonymous" = "identified"): RateLimiter {
  return callers === "anonymous"
    ? limiterFor("anonymous", config.rateLimitAnonymousPerMinute, "svc:ratelimit")
    : limiterFor("default", config.rateLimitPerMinute, "svc:ratelimit");
}

/** A limiter of its own for one kind of request (e.g. imports: 3 per minute per user). */
export function namedRateLimiter(name: string, max: number): RateLimiter {
  return limiterFor(name, max, `svc:ratelimit:${name}`);
}

/**
 * The answer's rate-limit fields: GitHub's X-RateLimit-* (Limit, Remaining, Used, Reset as Unix
 * seconds) and the IETF's RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers:
 * quota `q` over a window `w`, remaining `r`, seconds to reset `t`).
 */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const policy = `"${result.policy}"`;
  return {
    "X-RateLimit-Limit": String(result.limit),
    "X-RateLimit-Remaining": String(result.remaining),
    "X-RateLimit-Used": String(Math.max(0, result.limit - result.remaining)),
    "X-RateLimit-Reset": String(Math.ceil(result.reset / 1000)),
    "RateLimit-Policy": `${policy};q=${result.limit};w=${Math.ceil(result.windowMs / 1000)}`,
    RateLimit: `${policy};r=${result.remaining};t=${Math.max(0, Math.ceil((result.reset - Date.now()) / 1000))}`,
  };
}

/** The 429 for a caller over a limit, with its X-RateLimit-* headers and Retry-After. */
export function rateLimited(result: RateLimitResult): HttpError {
  const retryAfter = Math.max(1, Math.ceil((result.reset - Date.now()) / 1000));
  return new HttpError(
    429,
    "Too many requests",
    undefined,
    {},
    { ...rateLimitHeaders(result), "Retry-After": String(retryAfter) },
  );
}
