import type { InngestFunction } from "inngest";
import { EmbeddedExecutor } from "./executor";

const holder = globalThis as unknown as { __svcEmbeddedExecutor?: EmbeddedExecutor };

/** The server's executor, once started (one per process, whatever module copy asks). */
export function embeddedExecutor(): EmbeddedExecutor | undefined {
  return holder.__svcEmbeddedExecutor;
}

/** Starts the executor on a registry (the production one: inngest/functions), called in-process. */
export async function startEmbeddedExecutor(functions: InngestFunction.Any[]): Promise<EmbeddedExecutor> {
  if (holder.__svcEmbeddedExecutor) return holder.__svcEmbeddedExecutor;
  const executor = new EmbeddedExecutor({ functions });
  holder.__svcEmbeddedExecutor = executor;
  try {
    return await executor.start();
  } catch (error) {
    holder.__svcEmbeddedExecutor = undefined;
    throw error;
  }
}
