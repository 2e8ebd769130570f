import { config } from "@/server/config";

/** Attempts per delivery (the first try plus retries); retried only after network errors, timeouts and 5xx. */
export const WEBHOOK_MAX_ATTEMPTS = 6;
/** Longest wait between two attempts. */
export const WEBHOOK_RETRY_MAX_DELAY_MS = 5 * 60_000;
/** A webhook is deactivated after this many consecutive failed deliveries (every attempt of each failed). */
export const WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES = 5;
/** How much of a receiver's response body is kept in the delivery log. */
export const WEBHOOK_RESPONSE_EXCERPT_BYTES = 1024;
/** Attempts kept per webhook in the delivery log (older ones are pruned hourly by webhooks-prune-logs). */
export const WEBHOOK_DELIVERY_LOG_KEEP = 200;
/** Attempts returned by the deliveries route. */
export const WEBHOOK_DELIVERY_LOG_PAGE = 100;

/** Delay before attempt `attempt + 1`: base * 2^(attempt-1), capped. */
export function retryDelayMs(attempt: number): number {
  return Math.min(config.webhookRetryBaseMs * 2 ** (attempt - 1), WEBHOOK_RETRY_MAX_DELAY_MS);
}
