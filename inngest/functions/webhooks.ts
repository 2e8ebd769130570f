import { inngest } from "@/server/jobs";
import {
  attemptDelivery,
  pruneDeliveryLogs,
  retryDelayMs,
  WEBHOOK_MAX_ATTEMPTS,
  webhooksForEvent,
} from "@/server/webhooks";

/** One durable delivery job per (event, webhook); the event id is the delivery id, so a resent domain event starts no second job. */
export const WEBHOOK_DELIVER_EVENT = "svc/webhook.deliver";

/**
 * For every domain event of a project with an active webhook (`webhooks` in the job event: see
 * `domainJobEvent`): one delivery job per active webhook of the project that subscribes to its kind.
 * `!= false`, not `== true`: an event handed over before the field existed still fans out.
 */
export const webhookFanOut = inngest.createFunction(
  { id: "webhooks-fan-out", triggers: [{ event: "svc/domain.event", if: "event.data.webhooks != false" }], retries: 5 },
  async ({ event, step }) => {
    const eventId = String(event.data.eventId);
    // Not a step (one handler call fewer on the latency path): re-reading it on a replay is harmless,
    // and the delivery events' ids make a second send a no-op.
    const targets = await webhooksForEvent(eventId);
    if (targets.length === 0) return { deliveries: 0 };
    await step.sendEvent(
      "start-deliveries",
      targets.map((target) => ({
        id: target.deliveryId,
        name: WEBHOOK_DELIVER_EVENT,
        data: { eventId, webhookId: target.webhookId },
      })),
    );
    return { deliveries: targets.length };
  },
);

/**
 * Delivers one event to one webhook: an attempt per step, a capped exponential sleep between
 * attempts that ask for a retry (network errors, timeouts, 5xx). Step retries (`retries`) only
 * cover our own failures (the database), not the receiver's.
 */
export const webhookDeliver = inngest.createFunction(
  { id: "webhooks-deliver", triggers: [{ event: WEBHOOK_DELIVER_EVENT }], retries: 3 },
  async ({ event, step }) => {
    const job = { eventId: String(event.data.eventId), webhookId: String(event.data.webhookId) };
    for (let attempt = 1; ; attempt++) {
      const outcome = await step.run(`attempt-${attempt}`, () => attemptDelivery({ ...job, attempt }));
      if (outcome !== "retry" || attempt >= WEBHOOK_MAX_ATTEMPTS) return { outcome, attempts: attempt };
      await step.sleep(`backoff-${attempt}`, retryDelayMs(attempt));
    }
  },
);

/** Trims every webhook's delivery log to its newest attempts (WEBHOOK_DELIVERY_LOG_KEEP). */
export const webhookPruneLogs = inngest.createFunction(
  { id: "webhooks-prune-logs", triggers: [{ cron: "17 * * * *" }] },
  async ({ step }) => step.run("prune", async () => ({ deleted: await pruneDeliveryLogs() })),
);
