// Helpers of the benchmarks that call the route handlers in this process (no server). The app's modules
// are loaded on first use, after the benchmark has set its environment.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

/** One REST call through the app's route handlers; anything but the expected status stops the run. */
export async function rest(method: string, url: string, token: string | undefined, body: unknown, expected: number, headers: Record<string, string> = {}) {
  const { call } = await import("@/tests/support/http");
  const res = await call(method, url, { token, body, headers });
  if (res.status !== expected) throw new Error(`${method} ${url}: ${res.status} ${res.text}`);
  return res.body;
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
export const ms = (value: number) => `${value.toFixed(1)} ms`;

export function inProcessBench(name: string) {
  const { values } = parseArgs({ options: { requests: { type: "string", default: "2000" }, rounds: { type: "string", default: "3" } } });
  (process.env as Record<string, string>).NODE_ENV ??= "production";
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-bench-${name}-`));
  Object.assign(process.env, { DATA_DIR: dataDir, BASE_URL: "http://bench.test", ADMIN_API_KEY: "bench", RATE_LIMIT_PER_MINUTE: "100000000" });
  return { requests: Number(values.requests), rounds: Number(values.rounds), dataDir };
}

/** A REST call through the handler; no token means the admin key. Throws on a non-2xx answer. */
export async function api(method: string, url: string, token: string | null, body?: unknown) {
  const { handleRestRequest } = await import("@/server/api/rest");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  else headers["x-admin-api-key"] = "bench";
  const res = await handleRestRequest(new Request(`http://bench.test/api${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Server CPU (this process: the handler runs in-process) per call for `count` sequential calls; the first answer is checked. */
export async function cpuPerCall(send: () => Promise<Response>, count: number, check: (text: string) => boolean = () => true): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const res = await send();
    const text = await res.text();
    if (res.status !== 200 || (i === 0 && !check(text))) throw new Error(`call failed: ${res.status} ${text.slice(0, 300)}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function finishBench(dataDir: string) {
  const { closeDatabase } = await import("@/server/db/client");
  await closeDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
