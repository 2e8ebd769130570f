import { afterAll, beforeAll } from "vitest";
import type { InngestFunction } from "inngest";
import { functions as productionFunctions } from "@/inngest/functions";
import { EmbeddedExecutor, type Clock, type ExecutorSettings } from "@/server/jobs/executor";

/** Real time plus an offset that tests move forward (sleeps, backoffs, wait timeouts, leases). */
export class TestClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface TestJobs {
  executor: EmbeddedExecutor;
  clock: TestClock;
}

export interface TestExecutorOptions extends Omit<ExecutorSettings, "clock" | "autoRun"> {
  /** The functions to drive; the production registry by default. */
  functions?: InngestFunction.Any[];
}

const holder = globalThis as unknown as { __svcTestJobs?: TestJobs };

/**
 * Starts an embedded executor on the test's database with a controllable clock. It has no
 * background loop: work runs in drainJobs(). Replaces (and stops) a previous test executor.
 */
export async function startTestExecutor(options: TestExecutorOptions = {}): Promise<TestJobs> {
  await stopTestExecutor();
  const { functions = productionFunctions, ...rest } = options;
  const clock = new TestClock();
  const executor = new EmbeddedExecutor({ retryBaseMs: 10, ...rest, functions, clock, autoRun: false });
  await executor.start();
  holder.__svcTestJobs = { executor, clock };
  return holder.__svcTestJobs;
}

export async function stopTestExecutor(): Promise<void> {
  const current = holder.__svcTestJobs;
  holder.__svcTestJobs = undefined;
  await current?.executor.stop();
}

const DRAIN_TIMEOUT_MS = 25_000;

/**
 * Runs all due work until idle: events sent so far (and those the runs send), the runs they start,
 * retries and sleeps already due. `fastForward: true` also moves the clock to each later retry,
 * sleep end or wait timeout until nothing is left. Starts a production-registry executor if none runs.
 * Gives up after `timeoutMs`, by default just under the test's own timeout: runs that clone with
 * git take several times longer when the test files run side by side on a loaded machine.
 */
export async function drainJobs(options: { timeoutMs?: number; fastForward?: boolean } = {}): Promise<void> {
  const jobs = holder.__svcTestJobs ?? (await startTestExecutor());
  await jobs.executor.drain({ timeoutMs: DRAIN_TIMEOUT_MS, ...options, advance: (ms) => jobs.clock.advance(ms) });
}

/** Moves the test executor's clock forward. */
export function advanceJobClock(ms: number): void {
  holder.__svcTestJobs?.clock.advance(ms);
}

/** For a test file: a test executor from beforeAll (after useTestEnvironment's database) to afterAll. */
export function useTestJobs(options: TestExecutorOptions = {}): { readonly current: TestJobs } {
  const state = {} as { current: TestJobs };
  beforeAll(async () => {
    state.current = await startTestExecutor(options);
  });
  afterAll(async () => {
    await stopTestExecutor();
  });
  return state;
}
