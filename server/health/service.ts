import fs from "node:fs/promises";
import path from "node:path";
import { config } from "@/server/config";
import { db } from "@/server/db/client";
import { queueHealth } from "@/server/jobs/health";

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
  if (!config.redisRestUrl) return "in-memory";
  const { Redis } = await import("@upstash/redis");
  const redis = new Redis({ url: config.redisRestUrl, token: config.redisRestToken ?? "" });
  await redis.ping();
  return "redis";
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

async function runCheck(critical: boolean, run: HealthCheck): Promise<CheckResult> {
  const started = performance.now();
  try {
    const detail = await run();
    return { status: "ok", critical, latencyMs: Math.round(performance.now() - started), ...(detail ? { detail } : {}) };
  } catch (error) {
    return { status: "failed", critical, latencyMs: Math.round(performance.now() - started), detail: (error as Error).message };
  }
}

export async function healthReport() {
  const entries = await Promise.all(
    Object.entries(healthChecks).map(async ([name, check]) => [name, await runCheck(check.critical, check.run)] as const),
  );
  const checks = Object.fromEntries(entries);
  const failed = entries.filter(([, result]) => result.status === "failed");
  const status = failed.some(([, result]) => result.critical) ? "unhealthy" : failed.length ? "degraded" : "healthy";
  return { status, service: SERVICE_NAME, timestamp: new Date().toISOString(), checks } as const;
}
