import { inngest } from "@/server/jobs";
import { SYNC_REQUESTED_EVENT, runSync } from "@/server/imports";

/** Runs one queued sync of a project with its source (runSync records success or failure itself). */
export const syncJob = inngest.createFunction(
  {
    id: "sync-project",
    name: "Sync with the source",
    triggers: [{ event: SYNC_REQUESTED_EVENT }],
    retries: 0,
    concurrency: { limit: 1, key: "event.data.syncRunId" },
  },
  async ({ event, step }) => step.run("sync", () => runSync(String(event.data.syncRunId))),
);
