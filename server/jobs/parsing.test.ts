import { describe, expect, it } from "vitest";
import { parseCron } from "./cron";
import { backoffMs, parseDuration, retryAfterMs, sleepUntil } from "./durations";
import { compileExpression } from "./expressions";
import { readFunctionConfig } from "./registry";

const evaluate = (source: string, scope: Record<string, unknown>) => compileExpression(source)(scope);

describe("expressions", () => {
  const scope = {
    event: { data: { id: "a1", n: 3, tags: ["x", "y"], nested: { ok: true } } },
    async: { data: { id: "a1", n: 4 } },
  };

  it("compares paths, literals and combines them", () => {
    expect(evaluate("event.data.id == async.data.id", scope)).toBe(true);
    expect(evaluate("event.data.id == 'a1' && event.data.n < async.data.n", scope)).toBe(true);
    expect(evaluate('event.data.id != "a1" || !(event.data.nested.ok)', scope)).toBe(false);
    expect(evaluate("event.data.tags[1] == 'y' && event.data['n'] >= 3", scope)).toBe(true);
    expect(evaluate("event.data.n + 1 == async.data.n", scope)).toBe(true);
    expect(evaluate("event.data.missing.deeper == null", scope)).toBe(true);
    expect(evaluate("event.data.n > 'text'", scope)).toBe(false);
  });

  it("refuses syntax it does not implement", () => {
    expect(() => compileExpression("size(event.data.tags) > 1")).toThrow(/function calls/);
    expect(() => compileExpression("event.data.id == 'open")).toThrow(/unterminated/);
    expect(() => compileExpression("event.data.id == == 'x'")).toThrow(/unexpected/);
    expect(() => compileExpression("event.data.id ? 1 : 2")).toThrow(/unsupported character/);
  });
});

describe("cron", () => {
  const next = (expression: string, after: string) => parseCron(expression).next(new Date(after)).toISOString();

  it("finds the next fire time in UTC", () => {
    expect(next("*/5 * * * *", "2026-01-01T10:03:20Z")).toBe("2026-01-01T10:05:00.000Z");
    expect(next("*/5 * * * *", "2026-01-01T10:05:00Z")).toBe("2026-01-01T10:10:00.000Z");
    expect(next("0 3 * * MON", "2026-01-01T00:00:00Z")).toBe("2026-01-05T03:00:00.000Z");
    expect(next("30 9 1,15 * *", "2026-01-02T00:00:00Z")).toBe("2026-01-15T09:30:00.000Z");
    expect(next("0 0 29 2 *", "2026-03-01T00:00:00Z")).toBe("2028-02-29T00:00:00.000Z");
    expect(next("@hourly", "2026-01-01T10:59:59Z")).toBe("2026-01-01T11:00:00.000Z");
    expect(next("TZ=UTC 0 12 * * 1-5", "2026-01-03T13:00:00Z")).toBe("2026-01-05T12:00:00.000Z");
  });

  it("refuses malformed expressions and other time zones", () => {
    expect(() => parseCron("* * * *")).toThrow(/five fields/);
    expect(() => parseCron("61 * * * *")).toThrow(/out of range/);
    expect(() => parseCron("*/0 * * * *")).toThrow(/step/);
    expect(() => parseCron("TZ=Europe/Paris 0 * * * *")).toThrow(/UTC only/);
  });
});

describe("durations", () => {
  it("parses Inngest durations, sleep targets and retry-after", () => {
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("2d")).toBe(172_800_000);
    expect(parseDuration("250ms")).toBe(250);
    expect(() => parseDuration("soon")).toThrow(/invalid duration/);
    expect(sleepUntil("2s", 1000)).toBe(3000);
    expect(sleepUntil("2030-01-01T00:00:00.000Z", 0)).toBe(Date.parse("2030-01-01T00:00:00Z"));
    expect(retryAfterMs("30", 0)).toBe(30_000);
    expect(retryAfterMs(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(retryAfterMs(null, 0)).toBeUndefined();
  });

  it("backs off exponentially up to the cap", () => {
    expect(backoffMs(1, 1000, 60_000)).toBeGreaterThanOrEqual(1000);
    expect(backoffMs(3, 1000, 60_000)).toBeGreaterThanOrEqual(4000);
    expect(backoffMs(3, 1000, 60_000)).toBeLessThanOrEqual(4800);
    expect(backoffMs(20, 1000, 60_000)).toBeLessThanOrEqual(72_000);
  });
});

describe("function registration", () => {
  const base = { id: "app-fn", triggers: [{ event: "a/b" }], steps: { step: { retries: { attempts: 4 } } } };

  it("reads retries, triggers, concurrency and cancellation", () => {
    const spec = readFunctionConfig({
      ...base,
      concurrency: { limit: 2, key: "event.data.p" },
      cancel: [{ event: "a/c", if: "event.data.p == async.data.p" }],
    });
    expect(spec).toMatchObject({
      maxAttempts: 5,
      concurrency: { limit: 2 },
      cancel: [{ event: "a/c", timeoutMs: null }],
    });
    expect(readFunctionConfig({ id: "app-plain", triggers: [{ event: "x" }] }).maxAttempts).toBe(4);
  });

  it("refuses options the executor does not implement", () => {
    for (const option of [
      "rateLimit",
      "throttle",
      "debounce",
      "batchEvents",
      "idempotency",
      "singleton",
      "timeouts",
      "priority",
    ]) {
      expect(() => readFunctionConfig({ ...base, [option]: { limit: 1 } })).toThrow(
        new RegExp(`${option} not supported`),
      );
    }
    expect(() => readFunctionConfig({ ...base, concurrency: { limit: 1, scope: "account" } })).toThrow(/scope/);
    expect(() =>
      readFunctionConfig({ ...base, concurrency: [{ limit: 1 }, { limit: 2, key: "event.data.x" }] }),
    ).toThrow(/one concurrency/);
    expect(() => readFunctionConfig({ ...base, triggers: [{ event: "a/b", expression: "size(x)" }] })).toThrow(
      /function calls/,
    );
  });
});
