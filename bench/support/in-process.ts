// Shared by benchmarks that call the route handlers in-process (no server): the `--requests` and
// `--rounds` options, a throwaway DATA_DIR, an admin-keyed REST helper, CPU per call, medians.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

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
