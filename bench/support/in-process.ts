// Shared by benchmarks that drive the REST handler in-process: a private DATA_DIR and environment
// (set before the server's modules load), and a JSON call as a user (token) or the admin key.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const BENCH_ORIGIN = "http://bench.test";

/** Prepares the process for the in-process server; returns the data directory to remove at the end. */
export function benchEnvironment(name: string, env: Record<string, string> = {}): string {
  (process.env as Record<string, string>).NODE_ENV ??= "production";
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-bench-${name}-`));
  Object.assign(process.env, { DATA_DIR: dataDir, BASE_URL: BENCH_ORIGIN, ADMIN_API_KEY: "bench", RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "silent", ...env });
  return dataDir;
}

/** One JSON call through the REST handler; throws unless it succeeded. */
export async function benchApi(method: string, url: string, token: string | null, body?: unknown): Promise<{ body: any; etag: string | null }> {
  const { handleRestRequest } = await import("@/server/api/rest");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  else headers["x-admin-api-key"] = "bench";
  const res = await handleRestRequest(new Request(`${BENCH_ORIGIN}/api${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return { body: JSON.parse(text), etag: res.headers.get("etag") };
}
