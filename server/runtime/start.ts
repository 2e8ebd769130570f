import type { InngestFunction } from "inngest";
import { config, validateConfig } from "@/server/config";
import { closeDatabase, startInvalidationListener } from "@/server/db";
import { assertSandboxReady, sweepOrphanCgroups, sweepOrphanCheckouts } from "@/server/runners";
import { connectAtStartup } from "./connect";
import { assertInstanceKeysAgree } from "./keys";
import { protectDataDir } from "./data-dir";
import { registerSubscribers } from "./subscribers";
import { log } from "@/server/log";

const holder = globalThis as unknown as {
  __svcRuntimeStarted?: boolean;
  __svcShutdownHooks?: Array<() => Promise<void>>;
};

/** Hooks run on SIGTERM/SIGINT before the database closes (e.g. stopping the job executor). */
export function onShutdown(hook: () => Promise<void>): void {
  (holder.__svcShutdownHooks ??= []).push(hook);
}

/**
 * The job functions, loaded only when the embedded executor drives them. They live in inngest/, above
 * server/, so the caller at the top (instrumentation.ts) hands them down.
 */
export type LoadJobFunctions = () => Promise<InngestFunction.Any[]>;

/** startServerRuntime for Next's register hook: a failed start stops the process (Next would keep serving). */
export async function startServerRuntimeOrExit(loadFunctions: LoadJobFunctions): Promise<void> {
  try {
    await startServerRuntime(loadFunctions);
  } catch (error) {
    log().fatal(`start-up failed: ${(error as Error).message}`);
    process.exit(1);
  }
}

/** Runs once per server process, before the first request: migrations, background loops, signals. */
export async function startServerRuntime(loadFunctions: LoadJobFunctions): Promise<void> {
  if (holder.__svcRuntimeStarted) return;
  holder.__svcRuntimeStarted = true;
  validateConfig();
  assertSandboxReady();
  if (config.sandboxEnabled) {
    // Before this server's own runs: what a crashed one left would otherwise run on, unlimited by time.
    const orphans = await sweepOrphanCgroups();
    if (orphans.length) log().warn({ cgroups: orphans }, "removed the run cgroups a crashed server left");
    const checkouts = await sweepOrphanCheckouts();
    if (checkouts.length) log().warn({ checkouts }, "removed the run directories a crashed server left");
  }
  protectDataDir();
  registerSubscribers();
  await connectAtStartup();
  await assertInstanceKeysAgree();
  await startJobs(loadFunctions);
  // Importing auth registers its credential cache with the listener before it starts.
  await import("@/server/auth");
  // The merge queue registers its wake-up topic before the listener starts, then runs what is queued.
  const { startQueueRunner, startRunnerPool } = await import("@/server/changes");
  const queue = await startQueueRunner();
  onShutdown(() => queue.stop());
  // The evaluation runners likewise; at shutdown they abort and hand their runs back to the queue.
  const runners = await startRunnerPool();
  onShutdown(() => runners.stop());
  const invalidations = await startInvalidationListener();
  onShutdown(() => invalidations.stop());
  const shutdown = async (signal: string) => {
    log().info({ signal }, "shutting down");
    for (const hook of holder.__svcShutdownHooks ?? []) {
      await hook().catch((error) => log().error({ err: error }, "a shutdown hook failed"));
    }
    await closeDatabase().catch((error) => log().error({ err: error }, "closing the database failed"));
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

/** Without Inngest configuration the embedded executor drives the functions; it stops before the database closes. */
async function startJobs(loadFunctions: LoadJobFunctions): Promise<void> {
  const { inngestConfigured } = await import("@/server/jobs");
  if (inngestConfigured()) return;
  const [{ startEmbeddedExecutor }, functions] = await Promise.all([import("@/server/jobs"), loadFunctions()]);
  const executor = await startEmbeddedExecutor(functions);
  onShutdown(() => executor.stop());
  // Outbox rows left undispatched by the previous process go out now rather than at the next sweep.
  const { publishAfterCommit } = await import("@/server/events");
  void publishAfterCommit();
}
