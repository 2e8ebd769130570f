import { afterEach, describe, expect, it, vi } from "vitest";
import { cacheReports } from "@/server/caches";
import { keepStartedCheck, STARTED_CHECK_KEPT_MS, takeStartedCheck } from "./started-checks";

const size = () => cacheReports().find((report) => report.name === "imports.startedChecks")?.entries;

afterEach(() => {
  vi.useRealTimers();
});

describe("started submodule checks", () => {
  it("are taken once by their swap step, and forgotten when no step takes them in time", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(0);
    const taken = Promise.resolve();
    keepStartedCheck("/staging/a", taken);
    expect(size()).toBe(1);
    expect(takeStartedCheck("/staging/a")).toBe(taken);
    expect(takeStartedCheck("/staging/a")).toBeNull();

    // A swap step that ran elsewhere (another instance) never takes these two.
    keepStartedCheck("/staging/b", Promise.resolve());
    vi.setSystemTime(STARTED_CHECK_KEPT_MS / 2);
    keepStartedCheck("/staging/c", Promise.resolve());
    expect(size()).toBe(2);
    vi.setSystemTime(STARTED_CHECK_KEPT_MS + 1);
    keepStartedCheck("/staging/d", Promise.resolve());
    expect(size()).toBe(2);
    expect(takeStartedCheck("/staging/b")).toBeNull();
    expect(takeStartedCheck("/staging/c")).not.toBeNull();
    expect(takeStartedCheck("/staging/d")).not.toBeNull();
    expect(size()).toBe(0);
  });
});
