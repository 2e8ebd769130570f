import { db } from "@/server/db";
import { JobRunStatus } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time (the embedded executor's runs; with Inngest, its dashboard has them). */
export const jobMetrics = [
  {
    name: "svc_jobs",
    help: "Background-job runs by status",
    type: "gauge" as const,
    labelNames: ["status"],
    labelValues: Object.values(JobRunStatus),
    read: async () => {
      const rows = await (await db()).jobRun.groupBy({ by: ["status"], _count: { _all: true } });
      return rows.map((row) => ({ labels: { status: row.status }, value: row._count._all }));
    },
  },
  {
    name: "svc_job_queue_oldest_due_seconds",
    help: "How long the run waiting longest past its due time has waited (0 when none is)",
    type: "gauge" as const,
    labelNames: [],
    read: async () => {
      const oldest = await (await db()).jobRun.findFirst({ where: { status: { in: ["queued", "sleeping", "waiting"] }, availableAt: { lte: new Date() } }, orderBy: { availableAt: "asc" }, select: { availableAt: true } });
      return [{ labels: {}, value: oldest ? Math.max(0, (Date.now() - oldest.availableAt.getTime()) / 1000) : 0 }];
    },
  },
];
