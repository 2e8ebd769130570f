import os from "node:os";
import { randomUUID } from "node:crypto";
import type { EvalRun } from "@/server/generated/prisma/client";
import { config } from "@/server/config";
import { announceInvalidation, database, db, onInvalidation } from "@/server/db";
import { log } from "@/server/log";
import { launcherLost, layoutsRemoved } from "@/server/runners";
import { executeEvalRun } from "./execute";
import { runLogPath } from "./log";
import { runEnded, settleRound } from "./settle";
import { queuesSettled } from "../queue/runner";
import {
  abandonDeadRuns,
  claimRuns,
  finishRun,
  MAX_TAKES,
  releaseRuns,
  requeueRun,
  renewLeases,
  RENEW_MS,
  RUNS_CANCELLED_TOPIC,
  RUNS_TOPIC,
  type RunEnd,
} from "./store";

/**
 * This instance's runners: at most RUNNER_CONCURRENCY background runs at once, taken from the
 * durable queue (store.ts). Work is pushed: a new run wakes the runners here and, through the
 * database's notification channel, on every instance; a run ending frees a slot and takes the
 * next. A slow sweep takes what a lost notification or a dead instance left behind.
 */
const SWEEP_MS = 10_000;
/** How long a shutdown waits for its aborted runs before handing them back to the queue. */
const STOP_WAIT_MS = 5_000;

interface Active {
  controller: AbortController;
  done: Promise<void>;
  logBytes: number;
}

interface PoolState {
  owner: string;
  active: Map<string, Active>;
  filling: Promise<void> | null;
  again: boolean;
  stopped: boolean;
  sweep?: NodeJS.Timeout;
  renewals?: NodeJS.Timeout;
}
// On globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcRunnerPool?: PoolState };
const state: PoolState = (holder.__svcRunnerPool ??= {
  owner: `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
  active: new Map(),
  filling: null,
  again: false,
  stopped: false,
});

/** Takes queued runs for the free slots of this instance. */
function fillHere(): void {
  if (state.stopped) return;
  if (state.filling) {
    state.again = true;
    return;
  }
  state.filling = (async () => {
    do {
      state.again = false;
      const free = config.runnerConcurrency - state.active.size;
      if (free <= 0) return;
      for (const run of await claimRuns(state.owner, free)) start(run);
    } while (state.again);
  })()
    .catch((error: unknown) => log().error({ err: error }, "runs: taking runs failed"))
    .finally(() => (state.filling = null));
}

/**
 * Renews the leases of every run held here in one statement. A renewal also tells whether each
 * run is still ours: a takeover (or a cancel whose announcement was missed) leaves it out, and the
 * run is aborted.
 */
function renewHeld(): void {
  const held = [...state.active].map(([id, active]) => ({ id, logBytes: active.logBytes }));
  void renewLeases(state.owner, held)
    .then((ours) => {
      for (const { id } of held) if (!ours.has(id)) state.active.get(id)?.controller.abort();
    })
    .catch(() => undefined);
}

function start(run: EvalRun): void {
  const controller = new AbortController();
  const owner = state.owner;
  state.renewals ??= setInterval(renewHeld, RENEW_MS);
  const active: Active = { controller, done: Promise.resolve(), logBytes: run.logBytes };
  active.done = (async () => {
    const project = await (
      await db()
    ).project.findUnique({ where: { id: run.projectId! }, select: { namespace: true, slug: true } });
    if (!project) return;
    const started = performance.now();
    let end: RunEnd;
    try {
      const logPath = runLogPath(run.projectId!, run.id);
      end = await executeEvalRun(run, `@${project.namespace}/${project.slug}`, {
        logPath,
        signal: controller.signal,
        onOutput: (bytes) => (active.logBytes = bytes),
      });
    } catch (error) {
      // The runners' launcher died under the run, as a server dies under its runs: run it again.
      if (launcherLost(error) && run.attempts < MAX_TAKES && !controller.signal.aborted) {
        await requeueRun(run.id, owner);
        return;
      }
      end = {
        status: "error",
        findings: [{ message: `The run could not run: ${(error as Error).message}` }],
        durationMs: Math.round(performance.now() - started),
        logBytes: active.logBytes,
      };
    }
    // Aborted: cancelled, taken over or shutting down; the row already says which.
    if (controller.signal.aborted) return;
    if (await finishRun(run.id, owner, end)) await runEnded(run);
  })()
    .catch((error: unknown) => log().error({ err: error, runId: run.id }, "runs: a run failed"))
    .finally(() => {
      state.active.delete(run.id);
      if (state.active.size === 0) {
        clearInterval(state.renewals);
        state.renewals = undefined;
      }
      fillHere();
    });
  state.active.set(run.id, active);
}

/** Wakes the runners here and on every other instance (after the runs were committed). */
export function wakeRunners(): void {
  fillHere();
  void announceInvalidation(RUNS_TOPIC, "");
}

/** Aborts a run if this instance holds it (a cancel was announced). */
function abortHere(runId: string): void {
  state.active.get(runId)?.controller.abort();
}
// Whoever started the runs here (the runner pool, a request's wait): a missed announcement (a lost
// listener) is caught by a renewal, which tells which held runs are still ours.
onInvalidation(RUNS_CANCELLED_TOPIC, { drop: abortHere, dropAll: renewHeld });

// Rounds whose runs all ended but whose change never settled (the runner died in between).
const UNSETTLED = `
SELECT e."changeId" FROM "Evaluation" AS e
 WHERE e.verdict IS NULL
   AND NOT EXISTS (SELECT 1 FROM "EvalRun" AS r WHERE r."changeId" = e."changeId" AND r.round = e.round AND r.status IN ('queued', 'running'))
 LIMIT 100`;

/** Ends the runs every runner died on (their ends wake what they wake), settles what was left unsettled, takes what waits. */
export async function sweepRuns(): Promise<void> {
  for (const run of await abandonDeadRuns()) await runEnded(run);
  for (const { changeId } of await (await db()).$queryRawUnsafe<Array<{ changeId: string }>>(UNSETTLED))
    await settleRound(changeId);
  fillHere();
}

/**
 * Resolves once this instance runs nothing, nor any queue turn a run's end woke, and no run's
 * directory is still being removed (tests, shutdown).
 */
export async function runnersSettled(): Promise<void> {
  do {
    while (state.filling || state.active.size > 0) {
      await Promise.allSettled([state.filling, ...[...state.active.values()].map((active) => active.done)]);
    }
    await queuesSettled();
  } while (state.filling || state.active.size > 0);
  await layoutsRemoved();
}

/** Listens for other instances' wake-ups, sweeps slowly, takes what is queued; stops cleanly. */
export async function startRunnerPool(): Promise<{ stop(): Promise<void> }> {
  state.stopped = false;
  onInvalidation(RUNS_TOPIC, { drop: fillHere, dropAll: fillHere });
  await database();
  await sweepRuns().catch((error: unknown) => log().error({ err: error }, "runs: sweep failed"));
  state.sweep = setInterval(
    () => void sweepRuns().catch((error: unknown) => log().error({ err: error }, "runs: sweep failed")),
    SWEEP_MS,
  );
  state.sweep.unref();
  return {
    async stop() {
      state.stopped = true;
      clearInterval(state.sweep);
      const held = [...state.active.keys()];
      for (const active of state.active.values()) active.controller.abort();
      await Promise.race([runnersSettled(), new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
      // Handed back untaken: another instance (or this one's next start) runs them at once.
      await releaseRuns(held, state.owner);
    },
  };
}
