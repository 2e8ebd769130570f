import { db } from "@/server/db";
import { Visibility } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time. */
export const projectMetrics = [
  {
    name: "svc_projects",
    help: "Projects by visibility (not being deleted)",
    type: "gauge" as const,
    labelNames: ["visibility"],
    labelValues: Object.values(Visibility),
    read: async () => {
      const rows = await (await db()).project.groupBy({ by: ["visibility"], where: { deletingAt: null }, _count: { _all: true } });
      return rows.map((row) => ({ labels: { visibility: row.visibility }, value: row._count._all }));
    },
  },
];
