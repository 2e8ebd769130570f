import { db } from "@/server/db";
import { DeploymentStatus } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time. */
export const deploymentMetrics = [
  {
    name: "svc_deployments",
    help: "Deployments by status",
    type: "gauge" as const,
    labelNames: ["status"],
    labelValues: Object.values(DeploymentStatus),
    read: async () => {
      const rows = await (await db()).deployment.groupBy({ by: ["status"], _count: { _all: true } });
      return rows.map((row) => ({ labels: { status: row.status }, value: row._count._all }));
    },
  },
];
