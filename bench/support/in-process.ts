// Helpers of the benchmarks that call the route handlers in this process (no server). The app's modules
// are loaded on first use, after the benchmark has set its environment.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

// What the server's start-up does before it serves: the areas acting on branch moves subscribe
// (on first use, like every module of the app).
let subscribed: Promise<void> | undefined;

/** One REST call through the app's route handlers; anything but the expected status stops the run. */
export async function rest(
  method: string,
  url: string,
  token: string | undefined,
  body: unknown,
  expected: number,
  headers: Record<string, string> = {},
) {
  const { call } = await import("@/tests/support/http");
  await (subscribed ??= import("@/server/runtime/subscribers").then(({ registerSubscribers }) =>
    registerSubscribers(),
  ));
  const res = await call(method, url, { token, body, headers });
  if (res.status !== expected) throw new Error(`${method} ${url}: ${res.status} ${res.text}`);
  return res.body;
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
export const ms = (value: number) => `${value.toFixed(1)} ms`;

export const BENCH_ORIGIN = "http://bench.test";

/** Prepares the process for the in-process server (before its modules load); returns the data directory to remove at the end. */
export function benchEnvironment(name: string, env: Record<string, string> = {}): string {
  (process.env as Record<string, string>).NODE_ENV ??= "production";
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-bench-${name}-`));
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    BASE_URL: BENCH_ORIGIN,
    ADMIN_API_KEY: "bench",
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "silent",
    ...env,
  });
  return dataDir;
}

/** The `--requests` and `--rounds` options and the environment of a CPU-per-call benchmark. */
export function inProcessBench(name: string) {
  const { values } = parseArgs({
    options: { requests: { type: "string", default: "2000" }, rounds: { type: "string", default: "3" } },
  });
  return { requests: Number(values.requests), rounds: Number(values.rounds), dataDir: benchEnvironment(name) };
}

/** One JSON call through the REST handler, as a user (token) or the admin key (null); throws unless it succeeded. */
export async function benchApi(
  method: string,
  url: string,
  token: string | null,
  body?: unknown,
): Promise<{ body: any; etag: string | null }> {
  const { handleRestRequest } = await import("@/server/api/rest");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  else headers["x-admin-api-key"] = "bench";
  const res = await handleRestRequest(
    new Request(`${BENCH_ORIGIN}/api${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return { body: JSON.parse(text), etag: res.headers.get("etag") };
}

/** `benchApi`'s body alone. */
export const api = async (method: string, url: string, token: string | null, body?: unknown) =>
  (await benchApi(method, url, token, body)).body;

/** Server CPU (this process: the handler runs in-process) per call for `count` sequential calls; the first answer is checked. */
export async function cpuPerCall(
  send: () => Promise<Response>,
  count: number,
  check: (text: string) => boolean = () => true,
): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const res = await send();
    const text = await res.text();
    if (res.status !== 200 || (i === 0 && !check(text)))
      throw new Error(`call failed: ${res.status} ${text.slice(0, 300)}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function finishBench(dataDir: string) {
  const { closeDatabase } = await import("@/server/db/client");
  await closeDatabase();
  // Retried: a request still in flight when the bench ends may write one more object meanwhile.
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}
