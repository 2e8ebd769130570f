/** Read by server/metrics at scrape time; counted from the delivery log (what pruning keeps). */
export const webhookMetrics = [
  {
    name: "svc_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome, counted from the delivery log",
    type: "counter" as const,
    label: "outcome",
    labelValues: ["succeeded", "failed"],
    sql: `SELECT CASE WHEN succeeded THEN 'succeeded' ELSE 'failed' END AS label, count(*) AS value FROM "WebhookDelivery" GROUP BY succeeded`,
  },
];
