// The area's front door: other areas import from here, never from inside the area.
export {
  attemptDelivery,
  guardedPost,
  projectHasActiveWebhook,
  pruneDeliveryLogs,
  signBody,
  webhooksForEvent,
} from "./deliver";
export { WEBHOOK_MAX_ATTEMPTS, retryDelayMs } from "./policy";
export { webhookMetrics } from "./metrics";
