import { IssueStatus } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time. */
export const issueMetrics = [
  {
    name: "svc_issues",
    help: "Issues by status",
    type: "gauge" as const,
    label: "status",
    labelValues: Object.values(IssueStatus),
    sql: `SELECT status AS label, count(*) AS value FROM "Issue" GROUP BY status`,
  },
];
