import { ChangeStatus } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time. */
export const changeMetrics = [
  {
    name: "svc_changes",
    help: "Changes by status",
    type: "gauge" as const,
    label: "status",
    labelValues: Object.values(ChangeStatus),
    sql: `SELECT status AS label, count(*) AS value FROM "Change" GROUP BY status`,
  },
];
