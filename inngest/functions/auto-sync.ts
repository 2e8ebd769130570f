import { AUTO_SYNC_CRON } from "@/server/limits";
import { inngest } from "@/server/jobs";
import { queueDueSyncs } from "@/server/imports";

/** Every five minutes: queues a sync of each project with auto-sync on whose frequency has elapsed. */
export const autoSync = inngest.createFunction(
  { id: "auto-sync", name: "Auto-sync imported projects", triggers: [{ cron: AUTO_SYNC_CRON }], retries: 2 },
  async ({ step }) => ({ queued: await step.run("queue-due-syncs", () => queueDueSyncs()) }),
);
