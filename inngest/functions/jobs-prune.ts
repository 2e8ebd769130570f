import { inngest, pruneJobRows } from "@/server/jobs";

/** Deletes old ended runs and processed events of the embedded executor (JOB_ROWS_RETENTION_DAYS). */
export const jobsPrune = inngest.createFunction(
  { id: "jobs-prune", triggers: [{ cron: "41 * * * *" }] },
  async ({ step }) => step.run("prune", () => pruneJobRows()),
);
