import type { DeployEntry } from "@/server/policy";

/** Everything a provider gets for one call: the entry's named secrets only, the signing value apart. */
export interface ProviderCall {
  deployment: { id: string; name: string; attempt: number; commit: string; changeId: string | null };
  project: { id: string; path: string };
  entry: DeployEntry;
  secrets: Record<string, string>;
  /** The value of the entry's `signWith` secret (webhook only). */
  signingKey?: string;
  /** 1 for the first call of this attempt; more only after an interruption. */
  call: number;
}

/** `log` is the provider's output, not yet redacted; `error` says why it failed. */
export type ProviderResult = { ok: true; log: string } | { ok: false; log: string; error: string };
