import { metrics, refreshDatabaseFamilies } from "./registry";

/** The Prometheus text exposition (`text/plain; version=0.0.4`). */
export async function exposition(): Promise<{ contentType: string; text: string }> {
  const { registry } = metrics();
  await refreshDatabaseFamilies();
  return { contentType: registry.contentType, text: await registry.metrics() };
}

/** The JSON form: `{name, type, help, samples: [{labels, value}]}` per family (a histogram's samples also name their series). */
export async function metricsAsJson() {
  await refreshDatabaseFamilies();
  const families = await metrics().registry.getMetricsAsJSON();
  return families.map((family) => ({
    name: family.name,
    type: String(family.type),
    help: family.help,
    // prom-client sets metricName on a histogram's series (_bucket, _sum, _count) but does not type it.
    samples: (family.values as Array<(typeof family.values)[number] & { metricName?: string }>).map((sample) => ({
      ...(sample.metricName && sample.metricName !== family.name ? { name: sample.metricName } : {}),
      labels: Object.fromEntries(Object.entries(sample.labels).map(([key, value]) => [key, String(value)])),
      // JSON has no NaN (prom-client's event-loop lag statistics are NaN until sampled).
      value: Number.isNaN(sample.value) ? null : sample.value,
    })),
  }));
}
