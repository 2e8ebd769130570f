import { EmbeddedExecutor } from "./executor";

const holder = globalThis as unknown as { __svcEmbeddedExecutor?: EmbeddedExecutor };

/** The server's executor, once started (one per process, whatever module copy asks). */
export function embeddedExecutor(): EmbeddedExecutor | undefined {
  return holder.__svcEmbeddedExecutor;
}

/** Starts the executor on the production registry, served by the same handler as /api/inngest. */
export async function startEmbeddedExecutor(): Promise<EmbeddedExecutor> {
  if (holder.__svcEmbeddedExecutor) return holder.__svcEmbeddedExecutor;
  const [{ serveFunctions }, { functions }] = await Promise.all([import("@/inngest/serve"), import("@/inngest/functions")]);
  const executor = new EmbeddedExecutor({ handler: serveFunctions(functions) });
  holder.__svcEmbeddedExecutor = executor;
  try {
    return await executor.start();
  } catch (error) {
    holder.__svcEmbeddedExecutor = undefined;
    throw error;
  }
}
