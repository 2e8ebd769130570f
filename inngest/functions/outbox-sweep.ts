import { OUTBOX_SWEEP_CRON } from "@/server/limits";
import { inngest } from "@/server/jobs";
import { publishPendingEvents } from "@/server/events";

/** Every five minutes: dispatches outbox events that publishAfterCommit() missed (crash, failed send). */
export const outboxSweep = inngest.createFunction(
  { id: "event-outbox-sweep", name: "Event outbox sweep", triggers: [{ cron: OUTBOX_SWEEP_CRON }], retries: 2 },
  async ({ step }) => ({ published: await step.run("publish-pending-events", () => publishPendingEvents()) }),
);
