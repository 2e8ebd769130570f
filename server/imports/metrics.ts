import { FAILURE_CATEGORIES } from "@/server/providers";

/** Read by server/metrics at scrape time: counted from the import rows, so it survives restarts and agrees across instances. */
export const importMetrics = [
  {
    name: "svc_imports_failed_total",
    help: "Failed imports by failure category, counted from the import rows",
    type: "counter" as const,
    label: "category",
    labelValues: FAILURE_CATEGORIES,
    sql: `SELECT "failureCategory" AS label, count(*) AS value FROM "ProjectImport" WHERE status = 'failed' AND "failureCategory" IS NOT NULL GROUP BY "failureCategory"`,
  },
];
