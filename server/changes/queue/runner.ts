import { setTimeout } from "node:timers/promises";
import { registerCache } from "@/server/caches";
import { config } from "@/server/config";
import { announceInvalidation, database, db, onInvalidation } from "@/server/db";
import { processQueue } from "./process";
import { log } from "@/server/log";

/**
 * Who processes a project's queue, and when. Work is pushed, never polled: a queue or a landing
 * wakes its project here (and, on PostgreSQL, every instance through the database's notification
 * channel); a slow sweep only catches what a lost notification or a crash left behind.
 */
const SWEEP_MS = 60_000;
const TOPIC = "queue";

interface RunnerState {
  running: Map<string, Promise<void>>;
  again: Set<string>;
  sweep?: NodeJS.Timeout;
}
// On globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcQueueRunner?: RunnerState };
const state: RunnerState = (holder.__svcQueueRunner ??= { running: new Map(), again: new Set() });
registerCache("changes.queueRuns", {
  entries: () => state.running.size,
  limit: null,
  bound: "one per project whose queue runs now; removed when its run ends",
});

/**
 * Runs the project's queue in this process until nothing new arrived meanwhile (one run at a time
 * per project). An idle queue first waits `QUEUE_GATHER_MS` (GitHub's "wait time to meet minimum
 * group size"): a fleet's changes arrive in bursts, and a turn costs far more than an entry in it,
 * so entries that arrive within the window are tested and landed together. Wake-ups during a turn
 * start the next one right after it: the turn was their window.
 */
function runHere(projectId: string): void {
  if (state.running.has(projectId)) {
    state.again.add(projectId);
    return;
  }
  const run = (async () => {
    if (config.queueGatherMs > 0) await setTimeout(config.queueGatherMs);
    do {
      state.again.delete(projectId);
      await processQueue(projectId).catch((error: unknown) =>
        log().error({ projectId, err: error }, "queue: processing failed"),
      );
    } while (state.again.has(projectId));
  })().finally(() => state.running.delete(projectId));
  state.running.set(projectId, run);
}

/** Wakes the project's queue here and on every other instance (after the change that needs it committed). */
export function wakeQueue(projectId: string): void {
  runHere(projectId);
  void announceInvalidation(TOPIC, projectId);
}

/** Every project with queued entries gets a turn (start-up, the sweep, a reconnected listener). */
async function wakeAll(): Promise<void> {
  const projects = await (await db()).queueEntry.findMany({ distinct: ["projectId"], select: { projectId: true } });
  for (const { projectId } of projects) runHere(projectId);
}

/** Resolves once no queue of this process is being processed (tests, shutdown). */
export async function queuesSettled(): Promise<void> {
  while (state.running.size > 0) await Promise.allSettled([...state.running.values()]);
}

/** Starts listening for other instances' wake-ups and the slow sweep; runs what is already queued. */
export async function startQueueRunner(): Promise<{ stop(): Promise<void> }> {
  onInvalidation(TOPIC, { drop: runHere, dropAll: () => void wakeAll().catch(() => undefined) });
  await database();
  await wakeAll();
  state.sweep = setInterval(
    () => void wakeAll().catch((error: unknown) => log().error({ err: error }, "queue: sweep failed")),
    SWEEP_MS,
  );
  state.sweep.unref();
  return {
    async stop() {
      clearInterval(state.sweep);
      await queuesSettled();
    },
  };
}
