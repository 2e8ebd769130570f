import { closeDatabase, database } from "@/server/db/client";

const holder = globalThis as unknown as { __svcRuntimeStarted?: boolean; __svcShutdownHooks?: Array<() => Promise<void>> };

/** Hooks run on SIGTERM/SIGINT before the database closes (e.g. stopping the job executor). */
export function onShutdown(hook: () => Promise<void>): void {
  (holder.__svcShutdownHooks ??= []).push(hook);
}

/** Runs once per server process, before the first request: migrations, background loops, signals. */
export async function startServerRuntime(): Promise<void> {
  if (holder.__svcRuntimeStarted) return;
  holder.__svcRuntimeStarted = true;
  await database();
  const shutdown = async (signal: string) => {
    console.log(`[svc] ${signal}: shutting down`);
    for (const hook of holder.__svcShutdownHooks ?? []) {
      await hook().catch((error) => console.error("[svc] shutdown hook failed", error));
    }
    await closeDatabase().catch((error) => console.error("[svc] closing the database failed", error));
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}
