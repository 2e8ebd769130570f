// Helpers of the in-process benchmarks. Import it dynamically, after the benchmark has set its
// environment (it loads the app's route handlers).
import { call } from "@/tests/support/http";

/** One REST call through the app's route handlers; anything but the expected status stops the run. */
export async function rest(method: string, url: string, token: string | undefined, body: unknown, expected: number, headers: Record<string, string> = {}) {
  const res = await call(method, url, { token, body, headers });
  if (res.status !== expected) throw new Error(`${method} ${url}: ${res.status} ${res.text}`);
  return res.body;
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
export const ms = (value: number) => `${value.toFixed(1)} ms`;
