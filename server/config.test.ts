import { describe, expect, it } from "vitest";
import { withEnv } from "@/tests/support/env";
import { ConfigError, config, validateConfig } from "./config";

describe("configuration", () => {
  it.each([
    ["RATE_LIMIT_PER_MINUTE", "1k", /RATE_LIMIT_PER_MINUTE must be a whole number/],
    ["PORT", "abc", /PORT must be a whole number from 1 to 65535/],
    ["PORT", "70000", /PORT must be a whole number from 1 to 65535/],
    ["DATABASE_POOL_SIZE", "0", /DATABASE_POOL_SIZE must be a whole number from 1/],
    ["DEV_LOGIN", "yes", /DEV_LOGIN must be 1 \(on\) or 0 \(off\)/],
    ["BASE_URL", "not a url", /BASE_URL must be an http\(s\) URL/],
    ["BASE_URL", "ftp://forge.example", /BASE_URL must be an http\(s\) URL/],
    ["DATABASE_URL", "mysql://x", /DATABASE_URL must be a postgresql:\/\/ URL/],
    ["REDIS_URL", "http://redis.internal:6379", /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    ["REDIS_URL", "redis.internal:6379", /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    ["SECRET_KEY", "too-short", /SECRET_KEY must be at least 32 characters/],
    ["LLM_COST_PER_MTOK_INPUT", "-1", /LLM_COST_PER_MTOK_INPUT must be a non-negative number/],
  ])("%s=%j stops the start with a message naming it", (name, value, message) =>
    withEnv({ [name]: value }, async () => {
      expect(() => validateConfig()).toThrow(ConfigError);
      expect(() => validateConfig()).toThrow(message);
    }),
  );

  it("never repeats a secret's value in the message", () =>
    withEnv({ SECRET_KEY: "short-secret-value" }, async () =>
      expect(() => validateConfig()).not.toThrow(/short-secret-value/),
    ));

  it("takes redis:// and rediss:// URLs, credentials included", () =>
    withEnv({ REDIS_URL: "rediss://default:pass@redis.internal:6380/2" }, async () => {
      expect(() => validateConfig()).not.toThrow();
      expect(config.redisUrl).toBe("rediss://default:pass@redis.internal:6380/2");
    }));

  it("reads defaults and changes at run time", async () => {
    await withEnv({ PORT: undefined, BASE_URL: undefined, RATE_LIMIT_PER_MINUTE: "" }, async () => {
      expect(config.port).toBe(3000);
      expect(config.baseUrl).toBe("http://localhost:3000");
      expect(config.rateLimitPerMinute).toBe(1000);
    });
    await withEnv({ PORT: "8080", BASE_URL: "https://forge.example/", DEV_LOGIN: "1" }, async () => {
      expect([config.port, config.baseUrl, config.devLogin]).toEqual([8080, "https://forge.example", true]);
    });
  });
});
