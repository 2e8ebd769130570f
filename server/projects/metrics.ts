import { Visibility } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time. */
export const projectMetrics = [
  {
    name: "svc_projects",
    help: "Projects by visibility (not being deleted)",
    type: "gauge" as const,
    label: "visibility",
    labelValues: Object.values(Visibility),
    sql: `SELECT visibility AS label, count(*) AS value FROM "Project" WHERE "deletingAt" IS NULL GROUP BY visibility`,
  },
];
