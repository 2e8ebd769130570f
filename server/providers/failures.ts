import { DomainError, upstreamFailed } from "@/server/errors";

/** The spec's failure categories of an import (the admin metrics count failures by them). */
export const FAILURE_CATEGORIES = [
  "NETWORK_ERROR",
  "TIMEOUT",
  "AUTH_ERROR",
  "NOT_FOUND",
  "RATE_LIMITED",
  "UNSUPPORTED_CONTENT",
  "STORAGE_ERROR",
  "GIT_ERROR",
  "CANCELLED",
  "UNKNOWN_ERROR",
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/** A failure talking to the provider, with the category of what really happened. */
export class ProviderError extends Error {
  constructor(
    readonly category: FailureCategory,
    message: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

// Ordered: the first match wins (git prints a 404 as "not found" and a 401 as "Authentication failed").
const GIT_PATTERNS: Array<[RegExp, FailureCategory]> = [
  [/No space left on device|ENOSPC|Disk quota exceeded|write error|unable to write/i, "STORAGE_ERROR"],
  [/The requested URL returned error: 429|rate limit/i, "RATE_LIMITED"],
  [
    /Authentication failed|could not read (Username|Password)|returned error: 40[13]|terminal prompts disabled/i,
    "AUTH_ERROR",
  ],
  [
    /returned error: 404|Repository not found|not found|couldn't find remote ref|does not appear to be a git repository/i,
    "NOT_FOUND",
  ],
  [/Operation too slow|timed out|Timeout was reached/i, "TIMEOUT"],
  [
    /Could not resolve host|Failed to connect|Connection refused|Connection reset|Empty reply from server|unable to access|RPC failed/i,
    "NETWORK_ERROR",
  ],
];

/** The category of a failed git transfer, from git's own message. */
export function classifyGitFailure(stderr: string): FailureCategory {
  return GIT_PATTERNS.find(([pattern]) => pattern.test(stderr))?.[1] ?? "GIT_ERROR";
}

/** git's message without credentials or progress noise: the last few meaningful lines. */
export function gitFailureMessage(stderr: string): string {
  const lines = stderr
    .split(/[\r\n]/)
    .map((line) => line.trim())
    .filter((line) => line && !/^(remote: )?(Counting|Compressing|Receiving|Resolving|Enumerating|Total) /.test(line));
  return redactCredentials(lines.slice(-3).join("; ") || "git failed");
}

/** Strips anything that looks like a credential (user info in a URL, an Authorization value). */
export const redactCredentials = (text: string) =>
  text
    .replace(/\/\/[^/\s:@]+(:[^/\s@]*)?@/g, "//")
    .replace(/(authorization:\s*)(basic|bearer|token)\s+\S+/gi, "$1$2 [redacted]");

/** A provider failure answered to a caller: a rejected instance credential is 401 AUTH_ERROR, anything else 502 GITHUB_ERROR. */
export function providerRefusal(error: unknown): unknown {
  if (!(error instanceof ProviderError)) return error;
  if (error.category === "AUTH_ERROR")
    return new DomainError(
      "unauthenticated",
      `The provider refused the instance's credential: ${error.message}`,
      "AUTH_ERROR",
    );
  return upstreamFailed(`The provider call failed (${error.category}): ${error.message}`, "GITHUB_ERROR");
}
