import { inngest } from "@/server/jobs";
import { DELETION_REQUESTED_EVENT, markDeletionJobIncomplete, runDeletionJob } from "@/server/deletion";

/**
 * Runs a project or account deletion job. runDeletionJob resumes where it stopped, so an
 * incomplete pass is retried with backoff; after the last attempt the job stays incomplete
 * (re-drivable by an administrator). One pass per job at a time.
 */
export const deletionJob = inngest.createFunction(
  {
    id: "deletion-job",
    name: "Deletion job",
    triggers: [{ event: DELETION_REQUESTED_EVENT }],
    retries: 5,
    concurrency: { limit: 1, key: "event.data.jobId" },
    onFailure: async ({ event, error, step }) => {
      const jobId = String((event.data.event.data as { jobId: string }).jobId);
      await step.run("mark-incomplete", () => markDeletionJobIncomplete(jobId, error.message));
    },
  },
  async ({ event, step }) => {
    const jobId = String(event.data.jobId);
    const status = await step.run("run-deletion-job", async () => {
      const result = await runDeletionJob(jobId);
      if (result === "incomplete") throw new Error(`deletion job ${jobId} is incomplete; retrying`);
      return result;
    });
    return { jobId, status };
  },
);
