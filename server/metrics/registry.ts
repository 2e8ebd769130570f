import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { authMetrics } from "@/server/auth";
import { changeMetrics } from "@/server/changes";
import { issueMetrics } from "@/server/issues";
import { jobMetrics } from "@/server/jobs";
import { projectMetrics } from "@/server/projects";
import { webhookMetrics } from "@/server/webhooks";
import { deploymentMetrics } from "@/server/deployments";
import { importMetrics } from "@/server/imports";
import { samplesOf, type MetricSource } from "./source";
import { db } from "@/server/db";

const SOURCES: MetricSource[] = [
  ...authMetrics,
  ...projectMetrics,
  ...changeMetrics,
  ...issueMetrics,
  ...webhookMetrics,
  ...jobMetrics,
  ...importMetrics,
  ...deploymentMetrics,
];

/** Request latency buckets (seconds): a few ms for reads up to the slow merges and pushes. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function databaseFamilies(registry: Registry) {
  return SOURCES.map((source) => {
    const Family = source.type === "counter" ? Counter : Gauge;
    const labelNames = source.label ? [source.label] : [];
    return { source, family: new Family({ name: source.name, help: source.help, labelNames, registers: [registry] }) };
  });
}

/**
 * Every database family's query in one statement: on PGlite's one connection a round trip per
 * family cost several times the queries themselves (bench/backup), and one statement also reads
 * every family from one snapshot.
 */
const SCRAPE_STATEMENT = SOURCES.map(
  (source, index) =>
    `SELECT ${index} AS family, label::text AS label, value::float8 AS value FROM (${source.sql}) AS family_${index}`,
).join("\nUNION ALL\n");

/** Reads the database families (prom-client's collect() would run one query per family instead). */
export async function refreshDatabaseFamilies(): Promise<void> {
  const rows = await (
    await db()
  ).$queryRawUnsafe<Array<{ family: number; label: string | null; value: number }>>(SCRAPE_STATEMENT);
  for (const [index, { source, family }] of metrics().database.entries()) {
    family.reset();
    for (const sample of samplesOf(
      source,
      rows.filter((row) => row.family === index),
    )) {
      if (family instanceof Gauge) family.set(sample.labels, sample.value);
      else family.inc(sample.labels, sample.value);
    }
  }
}

function createMetrics() {
  const registry = new Registry();
  // prom-client's process_* and nodejs_* families (CPU, memory, handles, event-loop lag, GC, heap spaces):
  // what every Grafana dashboard for Node reads. Once per process, since the registry is.
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    database: databaseFamilies(registry),
    httpRequests: new Counter({
      name: "svc_http_requests_total",
      help: "HTTP API requests by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "svc_http_request_duration_seconds",
      help: "HTTP API request latency by method and route pattern",
      labelNames: ["method", "route"],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    gitRequests: new Counter({
      name: "svc_git_requests_total",
      help: "Git smart-HTTP requests by service",
      labelNames: ["service"],
      registers: [registry],
    }),
  };
}

// Process-wide on globalThis: Next.js loads separate module copies per entry point, and the counters
// of one process must add up in one registry.
const holder = globalThis as unknown as { __svcMetrics?: ReturnType<typeof createMetrics> };

export const metrics = () => (holder.__svcMetrics ??= createMetrics());
