import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { config } from "@/server/config";
import { HttpError } from "./errors";

export interface RateLimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** Unix ms when the window resets. */
  reset: number;
}

export interface RateLimiter {
  limit(key: string): Promise<RateLimitResult>;
}

/**
 * In-process sliding-window limiter with the semantics of @upstash/ratelimit's slidingWindow:
 * the previous window's count is weighted by how much of it still overlaps the sliding window.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; current: number; previous: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs = config.rateLimitWindowMs,
  ) {}

  async limit(key: string): Promise<RateLimitResult> {
    const now = Date.now();
    const start = now - (now % this.windowMs);
    let entry = this.windows.get(key);
    if (!entry || entry.start !== start) {
      const previous = entry && entry.start === start - this.windowMs ? entry.current : 0;
      entry = { start, current: 0, previous };
      this.windows.set(key, entry);
      if (this.windows.size > 100_000) this.evictStale(start);
    }
    const overlap = 1 - (now - start) / this.windowMs;
    const used = Math.floor(entry.previous * overlap) + entry.current;
    const reset = start + this.windowMs;
    if (used >= this.max) return { success: false, limit: this.max, remaining: 0, reset };
    entry.current += 1;
    return { success: true, limit: this.max, remaining: Math.max(0, this.max - used - 1), reset };
  }

  private evictStale(currentStart: number): void {
    for (const [key, value] of this.windows) if (value.start < currentStart - this.windowMs) this.windows.delete(key);
  }
}

/**
 * Shared limits for several instances through Upstash (or any Redis behind its REST API). When
 * Redis does not answer within a second, or fails, the request is let through (fail open): a Redis
 * outage must not take the API down.
 */
export class UpstashRateLimiter implements RateLimiter {
  private readonly ratelimit: Ratelimit;
  private readonly max: number;

  constructor(max: number, url: string, token: string, prefix = "svc:ratelimit", private readonly windowMs = config.rateLimitWindowMs) {
    this.max = max;
    this.ratelimit = new Ratelimit({
      redis: new Redis({ url, token, retry: false }),
      limiter: Ratelimit.slidingWindow(max, `${windowMs} ms`),
      prefix,
      timeout: 1000,
    });
  }

  async limit(key: string): Promise<RateLimitResult> {
    try {
      const { success, limit, remaining, reset } = await this.ratelimit.limit(key);
      return { success, limit, remaining, reset };
    } catch (error) {
      console.error("[svc] rate limiter unavailable; letting the request through", error);
      return { success: true, limit: this.max, remaining: this.max, reset: Date.now() + this.windowMs };
    }
  }
}

const holder = globalThis as unknown as { __svcRateLimiters?: Map<string, { limiter: RateLimiter; key: string }> };

/**
 * A process-wide limiter: for identities (RATE_LIMIT_PER_MINUTE) or for anonymous callers by
 * address (RATE_LIMIT_ANONYMOUS_PER_MINUTE). Upstash when UPSTASH_REDIS_REST_URL and _TOKEN are
 * set, in-memory otherwise (rebuilt when the configuration changes).
 */
export function requestRateLimiter(callers: "identified" | "anonymous" = "identified"): RateLimiter {
  const max = callers === "anonymous" ? config.rateLimitAnonymousPerMinute : config.rateLimitPerMinute;
  const url = config.redisRestUrl;
  const token = config.redisRestToken;
  const windowMs = config.rateLimitWindowMs;
  const key = `${max}|${windowMs}|${url ?? ""}|${token ?? ""}`;
  holder.__svcRateLimiters ??= new Map<string, { limiter: RateLimiter; key: string }>();
  const current = holder.__svcRateLimiters.get(callers);
  if (current?.key === key) return current.limiter;
  const limiter = url && token ? new UpstashRateLimiter(max, url, token, undefined, windowMs) : new MemoryRateLimiter(max, windowMs);
  holder.__svcRateLimiters.set(callers, { limiter, key });
  return limiter;
}

const named = globalThis as unknown as { __svcNamedLimiters?: Map<string, { limiter: RateLimiter; key: string }> };

/**
 * A limiter of its own for one kind of request (e.g. imports: 3 per minute per user), shared by
 * instances through Upstash when configured, in-memory otherwise.
 */
export function namedRateLimiter(name: string, max: number): RateLimiter {
  const url = config.redisRestUrl;
  const token = config.redisRestToken;
  const windowMs = config.rateLimitWindowMs;
  const key = `${max}|${windowMs}|${url ?? ""}|${token ?? ""}`;
  const limiters = (named.__svcNamedLimiters ??= new Map<string, { limiter: RateLimiter; key: string }>());
  const current = limiters.get(name);
  if (current?.key === key) return current.limiter;
  const limiter = url && token ? new UpstashRateLimiter(max, url, token, `svc:ratelimit:${name}`, windowMs) : new MemoryRateLimiter(max, windowMs);
  limiters.set(name, { limiter, key });
  return limiter;
}

export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(result.limit),
    "X-RateLimit-Remaining": String(result.remaining),
    "X-RateLimit-Reset": String(Math.ceil(result.reset / 1000)),
  };
}

/** The 429 for a caller over a limit, with its X-RateLimit-* headers and Retry-After. */
export function rateLimited(result: RateLimitResult): HttpError {
  const retryAfter = Math.max(1, Math.ceil((result.reset - Date.now()) / 1000));
  return new HttpError(429, "Too many requests", undefined, {}, { ...rateLimitHeaders(result), "Retry-After": String(retryAfter) });
}
