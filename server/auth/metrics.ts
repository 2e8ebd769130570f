import { db } from "@/server/db";

/** Read by server/metrics at scrape time. */
export const authMetrics = [
  {
    name: "svc_users",
    help: "User accounts (not being deleted)",
    type: "gauge" as const,
    labelNames: [],
    read: async () => [{ labels: {}, value: await (await db()).user.count({ where: { deletingAt: null } }) }],
  },
];
