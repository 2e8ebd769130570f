import { DeploymentStatus } from "@/server/generated/prisma/enums";

/** Read by server/metrics at scrape time. */
export const deploymentMetrics = [
  {
    name: "svc_deployments",
    help: "Deployments by status",
    type: "gauge" as const,
    label: "status",
    labelValues: Object.values(DeploymentStatus),
    sql: `SELECT status AS label, count(*) AS value FROM "Deployment" GROUP BY status`,
  },
];
