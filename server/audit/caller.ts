import { AsyncLocalStorage } from "node:async_hooks";
import { clientAddress } from "@/server/http";

// Process-wide on globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcAuditCaller?: AsyncLocalStorage<string | null> };
const storage = (holder.__svcAuditCaller ??= new AsyncLocalStorage<string | null>());

/** Runs a request's handling with its caller's address in scope, so audit rows written inside record it. */
export function withCallerAddress<T>(req: Request, fn: () => Promise<T>): Promise<T> {
  return storage.run(clientAddress(req), fn);
}

/** The address of the request being handled, or null outside a request (jobs, operator commands). */
export const currentCallerAddress = (): string | null => storage.getStore() ?? null;
