import { JobRunStatus } from "@/server/generated/prisma/enums";

/** Timestamps are stored in UTC without a zone (as Prisma writes them). */
const NOW_UTC = `(now() AT TIME ZONE 'UTC')`;

/** Read by server/metrics at scrape time (the embedded executor's runs; with Inngest, its dashboard has them). */
export const jobMetrics = [
  {
    name: "svc_jobs",
    help: "Background-job runs by status",
    type: "gauge" as const,
    label: "status",
    labelValues: Object.values(JobRunStatus),
    sql: `SELECT status AS label, count(*) AS value FROM "JobRun" GROUP BY status`,
  },
  {
    name: "svc_job_queue_oldest_due_seconds",
    help: "How long the run waiting longest past its due time has waited (0 when none is)",
    type: "gauge" as const,
    sql: `SELECT NULL AS label, COALESCE(EXTRACT(EPOCH FROM ${NOW_UTC} - min("availableAt")), 0) AS value
            FROM "JobRun" WHERE status IN ('queued', 'sleeping', 'waiting') AND "availableAt" <= ${NOW_UTC}`,
  },
];
