import fs from "node:fs/promises";
import path from "node:path";
import { config } from "@/server/config";
import { db } from "@/server/db";
import { sharedRedis } from "@/server/http";
import { queueHealth } from "@/server/jobs";

export const SERVICE_NAME = "svc-forge";

export interface CheckResult {
  status: "ok" | "failed";
  critical: boolean;
  latencyMs: number;
  detail?: string;
}

export type HealthCheck = () => Promise<void | string>;

async function checkDatabase(): Promise<void> {
  const prisma = await db();
  await prisma.$queryRawUnsafe("SELECT 1");
}

async function checkArtifactStorage(): Promise<void> {
  await fs.mkdir(config.reposDir, { recursive: true });
  const probe = path.join(config.reposDir, `.health-${process.pid}`);
  await fs.writeFile(probe, "ok");
  await fs.rm(probe, { force: true });
}

async function checkKeyValueStore(): Promise<string> {
  const redis = sharedRedis();
  if (!redis) return "in-memory";
  await redis.ping();
  return redis.kind;
}

async function checkQueue(): Promise<string> {
  const health = await queueHealth();
  if (!health.ok) throw new Error(health.detail);
  return health.detail;
}

/** The checks behind GET /api/health; the queue is the only non-critical one. Tests may replace any. */
export const healthChecks: Record<string, { critical: boolean; run: HealthCheck }> = {
  database: { critical: true, run: checkDatabase },
  keyValueStore: { critical: true, run: checkKeyValueStore },
  artifactStorage: { critical: true, run: checkArtifactStorage },
  queue: { critical: false, run: checkQueue },
};

/** A dependency that does not answer within this bound counts as failed (a load balancer must not hang). */
const CHECK_TIMEOUT_MS = 5_000;

function withinTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function runCheck(critical: boolean, run: HealthCheck, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  try {
    const detail = await withinTimeout(run(), timeoutMs);
    return {
      status: "ok",
      critical,
      latencyMs: Math.round(performance.now() - started),
      ...(detail ? { detail } : {}),
    };
  } catch (error) {
    return {
      status: "failed",
      critical,
      latencyMs: Math.round(performance.now() - started),
      detail: (error as Error).message,
    };
  }
}

export async function healthReport(options: { timeoutMs?: number } = {}) {
  const entries = await Promise.all(
    Object.entries(healthChecks).map(
      async ([name, check]) =>
        [name, await runCheck(check.critical, check.run, options.timeoutMs ?? CHECK_TIMEOUT_MS)] as const,
    ),
  );
  const checks = Object.fromEntries(entries);
  const failed = entries.filter(([, result]) => result.status === "failed");
  const status = failed.some(([, result]) => result.critical) ? "unhealthy" : failed.length ? "degraded" : "healthy";
  return { status, service: SERVICE_NAME, timestamp: new Date().toISOString(), checks } as const;
}
