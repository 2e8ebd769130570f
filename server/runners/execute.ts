import { config } from "@/server/config";
import type { Repo } from "@/server/git";
import { sandboxAvailable } from "./bwrap";
import { cacheKey, restoreCache, saveCache } from "./cache";
import { writeCheckout } from "./checkout";
import { tailFinding, testFindings } from "./findings";
import { runIsolated, type IsolatedOutcome } from "./isolate";
import { createLayout, removeLayout, type RunLayout } from "./layout";
import { launcherLost } from "./launcher";
import { RunLog } from "./log";
import type { RunResult, RunSpec } from "./types";

/** Output kept in memory per step for findings (TAP, the last lines); the log keeps the rest. */
const STEP_OUTPUT_BYTES = 8 * 1024 * 1024;

type Step = IsolatedOutcome & { output: string };

/** Why a step did not pass, in words; null when it exited 0 in time. */
export function stepFailure(step: IsolatedOutcome, timeoutMs: number): string | null {
  if (step.code === 0 && !step.timedOut) return null;
  return step.timedOut
    ? `timed out after ${timeoutMs} ms`
    : step.signal
      ? `was killed (${step.signal})`
      : `exited with ${step.code}`;
}

/**
 * Runs one sandbox evaluation: a checkout of the commit; setup with network (skipped when the
 * cache has what it produced for this key, saved after it succeeds); then the command without
 * network, again after a failure up to `retries` times. The log gets every step's output in order.
 */
export async function executeRun(spec: RunSpec): Promise<RunResult> {
  const started = performance.now();
  const { sandbox } = spec;
  const log = new RunLog(spec.logPath, config.runnerLogBytes, spec.onOutput);
  const base = {
    exitCode: null,
    timedOut: false,
    attempts: 0,
    flaky: false,
    cache: null,
    findings: [],
  } satisfies Partial<RunResult>;
  const finish = (result: Partial<RunResult> & Pick<RunResult, "status">): RunResult => {
    log.note(`run ${result.status}`);
    return { ...base, ...result, logBytes: log.close(), durationMs: Math.round(performance.now() - started) };
  };
  const available = sandboxAvailable();
  if (!available.ok) {
    log.note(available.reason);
    return finish({ status: "error", findings: [{ message: `The sandbox is not available: ${available.reason}` }] });
  }
  let layout: RunLayout | undefined;
  try {
    layout = await createLayout();
    log.note(`checkout of ${spec.commit}`);
    await writeCheckout(spec.repo, spec.commit, layout);
    const deadline = Date.now() + sandbox.timeoutMs;
    const step = (command: string, network: boolean, timeoutMs: number): Promise<Step> =>
      runStep(layout!, log, spec, command, network, timeoutMs);

    let cache: RunResult["cache"] = null;
    if (sandbox.setup) {
      if (sandbox.cache) {
        const key = cacheKey(layout.src, sandbox.cache, sandbox.setup);
        cache = { key, hit: await restoreCache(spec.projectId, key, sandbox.cache, layout) };
        log.note(
          cache.hit
            ? `cache ${key}: hit, restored ${sandbox.cache.paths.join(", ")}; setup skipped`
            : `cache ${key}: miss`,
        );
      }
      if (!cache?.hit) {
        log.note(`setup: ${sandbox.setup}`);
        const setup = await step(sandbox.setup, true, sandbox.timeoutMs);
        if (setup.cancelled) return finish({ status: "cancelled", cache });
        if (setup.sandboxError) throw new Error(`The sandbox could not start: ${setup.sandboxError}`);
        const why = stepFailure(setup, sandbox.timeoutMs);
        if (why !== null)
          return finish({
            status: "failed",
            exitCode: setup.code,
            timedOut: setup.timedOut,
            cache,
            findings: [tailFinding(`The setup command ${why}`, setup.output)],
          });
        if (sandbox.cache && cache) {
          await saveCache(spec.projectId, cache.key, sandbox.cache, layout).catch((error: Error) =>
            log.note(`the cache was not saved: ${error.message}`),
          );
        }
      }
    }

    let last: Step | undefined;
    let attempts = 0;
    while (attempts <= sandbox.retries) {
      attempts++;
      // The first attempt shares the run's time with setup; a retry gets the whole of it.
      const timeoutMs = attempts === 1 ? Math.max(1, deadline - Date.now()) : sandbox.timeoutMs;
      log.note(`command${attempts > 1 ? ` (attempt ${attempts})` : ""}: ${sandbox.command}`);
      last = await step(sandbox.command, false, timeoutMs);
      if (last.cancelled) return finish({ status: "cancelled", attempts, cache });
      if (last.sandboxError) throw new Error(`The sandbox could not start: ${last.sandboxError}`);
      if (stepFailure(last, timeoutMs) === null)
        return finish({ status: "passed", exitCode: 0, attempts, flaky: attempts > 1, cache });
      // A command that ran out of time would only run out of time again.
      if (last.timedOut) break;
    }
    const why = stepFailure(last!, sandbox.timeoutMs)!;
    const tests = last!.timedOut ? [] : testFindings(layout.src, sandbox.reports, last!.output);
    return finish({
      status: "failed",
      exitCode: last!.code,
      timedOut: last!.timedOut,
      attempts,
      cache,
      findings: tests.length ? tests : [tailFinding(`The command ${why}`, last!.output)],
    });
  } catch (error) {
    log.note(`the run could not complete: ${(error as Error).message}`);
    // Not the run's failure: its caller hands it back to be run again (launcherLost).
    if (launcherLost(error)) {
      log.close();
      throw error;
    }
    return finish({ status: "error", findings: [{ message: (error as Error).message }] });
  } finally {
    // Off the verdict's path (bench/ci: 100-400 ms for 3,000 files): nothing of the run is alive,
    // and its uid is only handed out again once the directory is gone.
    if (layout) void removeLayout(layout).catch(() => undefined);
  }
}

async function runStep(
  layout: RunLayout,
  log: RunLog,
  spec: RunSpec,
  command: string,
  network: boolean,
  timeoutMs: number,
): Promise<Step> {
  const chunks: Buffer[] = [];
  let kept = 0;
  const outcome = await runIsolated({
    layout,
    command,
    network,
    memoryMb: spec.sandbox.memoryMb,
    timeoutMs,
    signal: spec.signal,
    onData: (chunk) => {
      log.write(chunk);
      chunks.push(chunk);
      kept += chunk.length;
      while (kept - chunks[0].length >= STEP_OUTPUT_BYTES) kept -= chunks.shift()!.length;
    },
  });
  if (outcome.timedOut) log.note(`timed out after ${timeoutMs} ms: every process of the step was killed`);
  if (outcome.cancelled) log.note("cancelled: every process of the step was killed");
  return { ...outcome, output: Buffer.concat(chunks).toString("utf8") };
}

export interface CheckoutCommand {
  command: string;
  timeoutMs: number;
  memoryMb: number;
  /** Added to the command's bare environment (a deployment's secrets). */
  env?: Record<string, string>;
  onData: (chunk: Buffer) => void;
}

/**
 * One command, without network, in the same sandbox as a run's, in a checkout of `commit`: the
 * binding of command deployments. Throws when the sandbox is missing or the checkout fails.
 */
export async function runInCheckout(repo: Repo, commit: string, run: CheckoutCommand): Promise<IsolatedOutcome> {
  const available = sandboxAvailable();
  if (!available.ok) throw new Error(`The sandbox is not available: ${available.reason}`);
  const layout = await createLayout();
  try {
    await writeCheckout(repo, commit, layout);
    return await runIsolated({ layout, network: false, ...run });
  } finally {
    await removeLayout(layout).catch(() => undefined);
  }
}
