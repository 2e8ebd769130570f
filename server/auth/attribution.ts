import { AsyncLocalStorage } from "node:async_hooks";
import type { Identity } from "./identity";

// On globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcKeyAttribution?: AsyncLocalStorage<string> };
const storage = (holder.__svcKeyAttribution ??= new AsyncLocalStorage<string>());

/**
 * Runs work done for `identity`; when it is a workspace key, the domain events recorded inside
 * name the key (`data.keyId`) beside its creator, who is the actor.
 */
export function attributedTo<T>(identity: Identity, work: () => T): T {
  return identity.kind === "workspace-key" ? storage.run(identity.keyId, work) : work();
}

/** The workspace key the current work is done with, if any. */
export const currentKeyId = (): string | undefined => storage.getStore();
