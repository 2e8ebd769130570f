import { db } from "@/server/db";
import { FAILURE_CATEGORIES } from "@/server/providers";

/** Read by server/metrics at scrape time: counted from the import rows, so it survives restarts and agrees across instances. */
export const importMetrics = [
  {
    name: "svc_imports_failed_total",
    help: "Failed imports by failure category, counted from the import rows",
    type: "counter" as const,
    labelNames: ["category"],
    labelValues: FAILURE_CATEGORIES,
    read: async () => {
      const rows = await (await db()).projectImport.groupBy({ by: ["failureCategory"], where: { status: "failed", failureCategory: { not: null } }, _count: { _all: true } });
      return rows.map((row) => ({ labels: { category: row.failureCategory as string }, value: row._count._all }));
    },
  },
];
