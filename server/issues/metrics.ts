import { db } from "@/server/db";
import { IssueStatus } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time. */
export const issueMetrics = [
  {
    name: "svc_issues",
    help: "Issues by status",
    type: "gauge" as const,
    labelNames: ["status"],
    labelValues: Object.values(IssueStatus),
    read: async () => {
      const rows = await (await db()).issue.groupBy({ by: ["status"], _count: { _all: true } });
      return rows.map((row) => ({ labels: { status: row.status }, value: row._count._all }));
    },
  },
];
