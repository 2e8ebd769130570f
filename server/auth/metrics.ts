/** Read by server/metrics at scrape time. */
export const authMetrics = [
  {
    name: "svc_users",
    help: "User accounts (not being deleted)",
    type: "gauge" as const,
    sql: `SELECT NULL AS label, count(*) AS value FROM "User" WHERE "deletingAt" IS NULL`,
  },
];
