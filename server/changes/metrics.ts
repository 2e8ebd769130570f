import { db } from "@/server/db";
import { ChangeStatus } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time. */
export const changeMetrics = [
  {
    name: "svc_changes",
    help: "Changes by status",
    type: "gauge" as const,
    labelNames: ["status"],
    labelValues: Object.values(ChangeStatus),
    read: async () => {
      const rows = await (await db()).change.groupBy({ by: ["status"], _count: { _all: true } });
      return rows.map((row) => ({ labels: { status: row.status }, value: row._count._all }));
    },
  },
];
