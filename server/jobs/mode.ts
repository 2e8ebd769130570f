import crypto from "node:crypto";
import { config } from "@/server/config";

/**
 * Inngest drives the functions when it is configured (INNGEST_EVENT_KEY / INNGEST_SIGNING_KEY, and
 * INNGEST_BASE_URL for a self-hosted server); otherwise the embedded executor does.
 */
export function inngestConfigured(): boolean {
  return Boolean(config.inngestEventKey || config.inngestSigningKey);
}

export interface LocalExecutor {
  wake(): void;
}

// Process-wide on globalThis: Next.js loads separate module copies per entry point, and the serve
// route must verify what the executor (started from instrumentation) signs.
const holder = globalThis as unknown as { __svcJobsSigningKey?: string; __svcJobExecutors?: Set<LocalExecutor> };

/** The signing key of embedded mode: random per process, never stored, so /api/inngest cannot be forged. */
export function embeddedSigningKey(): string {
  holder.__svcJobsSigningKey ??= `signkey-embedded-${crypto.randomBytes(32).toString("hex")}`;
  return holder.__svcJobsSigningKey;
}

/** Executors running in this process; sent events wake them at once instead of at their next poll. */
export function localExecutors(): Set<LocalExecutor> {
  holder.__svcJobExecutors ??= new Set();
  return holder.__svcJobExecutors;
}

export function wakeLocalExecutors(): void {
  for (const executor of localExecutors()) executor.wake();
}
