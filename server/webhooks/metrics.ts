import { db } from "@/server/db";

/** Read by server/metrics at scrape time; counted from the delivery log (what pruning keeps). */
export const webhookMetrics = [
  {
    name: "svc_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome, counted from the delivery log",
    type: "counter" as const,
    labelNames: ["outcome"],
    labelValues: ["succeeded", "failed"],
    read: async () => {
      const rows = await (await db()).webhookDelivery.groupBy({ by: ["succeeded"], _count: { _all: true } });
      return rows.map((row) => ({ labels: { outcome: row.succeeded ? "succeeded" : "failed" }, value: row._count._all }));
    },
  },
];
