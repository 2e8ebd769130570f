import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { authMetrics } from "@/server/auth";
import { changeMetrics } from "@/server/changes";
import { issueMetrics } from "@/server/issues";
import { jobMetrics } from "@/server/jobs";
import { projectMetrics } from "@/server/projects";
import { webhookMetrics } from "@/server/webhooks";
import { deploymentMetrics } from "@/server/deployments";
import { importMetrics } from "@/server/imports";
import { withZeroes, type MetricSource } from "./source";

const SOURCES: MetricSource[] = [...authMetrics, ...projectMetrics, ...changeMetrics, ...issueMetrics, ...webhookMetrics, ...jobMetrics, ...importMetrics, ...deploymentMetrics];

/** Request latency buckets (seconds): a few ms for reads up to the slow merges and pushes. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The database families. prom-client would run every family's collect() at once, and concurrent
 * queries on PGlite's one connection cost about ten times their sum (measured by bench/backup), so
 * `refreshDatabaseFamilies` reads the sources one after another before each scrape instead.
 */
function databaseFamilies(registry: Registry) {
  return SOURCES.map((source) => {
    const Family = source.type === "counter" ? Counter : Gauge;
    return { source, family: new Family({ name: source.name, help: source.help, labelNames: source.labelNames, registers: [registry] }) };
  });
}

export async function refreshDatabaseFamilies(): Promise<void> {
  for (const { source, family } of metrics().database) {
    const samples = withZeroes(source, await source.read());
    family.reset();
    for (const sample of samples) {
      if (family instanceof Gauge) family.set(sample.labels, sample.value);
      else family.inc(sample.labels, sample.value);
    }
  }
}

function createMetrics() {
  const registry = new Registry();
  return {
    registry,
    database: databaseFamilies(registry),
    httpRequests: new Counter({ name: "svc_http_requests_total", help: "HTTP API requests by method, route pattern and status", labelNames: ["method", "route", "status"], registers: [registry] }),
    httpDuration: new Histogram({ name: "svc_http_request_duration_seconds", help: "HTTP API request latency by method and route pattern", labelNames: ["method", "route"], buckets: LATENCY_BUCKETS, registers: [registry] }),
    gitRequests: new Counter({ name: "svc_git_requests_total", help: "Git smart-HTTP requests by service", labelNames: ["service"], registers: [registry] }),
  };
}

// Process-wide on globalThis: Next.js loads separate module copies per entry point, and the counters
// of one process must add up in one registry.
const holder = globalThis as unknown as { __svcMetrics?: ReturnType<typeof createMetrics> };

export const metrics = () => (holder.__svcMetrics ??= createMetrics());
