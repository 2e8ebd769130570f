import type { MetricSample, MetricSource } from "./source";

// Families whose tables live on other branches (imports, deployments). The lead replaces each
// `read` with the owning area's own `metrics` export when those areas land (see README, Metrics).

/** The spec's import failure categories (interface.md, Import progress). */
export const IMPORT_FAILURE_CATEGORIES = [
  "NETWORK_ERROR",
  "TIMEOUT",
  "AUTH_ERROR",
  "NOT_FOUND",
  "RATE_LIMITED",
  "UNSUPPORTED_CONTENT",
  "STORAGE_ERROR",
  "GIT_ERROR",
  "CANCELLED",
  "UNKNOWN_ERROR",
] as const;

const noRowsYet = async (): Promise<MetricSample[]> => [];

export const pendingSources: MetricSource[] = [
  {
    name: "svc_imports_failed_total",
    help: "Failed imports by failure category, counted from the import rows",
    type: "counter",
    labelNames: ["category"],
    labelValues: IMPORT_FAILURE_CATEGORIES,
    read: noRowsYet,
  },
  {
    name: "svc_deployments",
    help: "Deployments by status",
    type: "gauge",
    labelNames: ["status"],
    read: noRowsYet,
  },
];
