// What a server's requests waited on, by route, from its log at LOG_LEVEL=info (each request's
// line: durationMs, and what it waited on: dbMs/dbCalls, lockMs). Per route of the most
// requested: count, then p50/p90 of the whole time, the database's, the ref locks' and the rest.
// Usage: node bench/support/request-waits.mjs LOG [routes, 8]   (or import requestWaits)
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
};
const spread = (values) => ({ p50: Math.round(percentile(values, 0.5)), p90: Math.round(percentile(values, 0.9)) });

/** `{ "POST /api/...": { n, ms, dbMs, dbCalls, lockMs, restMs } }`, each a `{p50, p90}` but n. */
export function requestWaits(logFile, routes = 8) {
  const byRoute = new Map();
  for (const text of fs.readFileSync(logFile, "utf8").split("\n")) {
    if (!text.includes('"msg":"request"')) continue;
    const line = JSON.parse(text);
    const key = `${line.method} ${line.route}`;
    if (!byRoute.has(key)) byRoute.set(key, []);
    byRoute.get(key).push(line);
  }
  const busiest = [...byRoute].sort((a, b) => b[1].length - a[1].length).slice(0, routes);
  return Object.fromEntries(
    busiest.map(([route, lines]) => {
      const of = (field) => lines.map((line) => line[field] ?? 0);
      const rest = lines.map((line) => line.durationMs - (line.dbMs ?? 0) - (line.lockMs ?? 0));
      return [
        route,
        {
          n: lines.length,
          ms: spread(of("durationMs")),
          dbMs: spread(of("dbMs")),
          dbCalls: spread(of("dbCalls")),
          lockMs: spread(of("lockMs")),
          restMs: spread(rest),
        },
      ];
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(requestWaits(process.argv[2], Number(process.argv[3] ?? 8)), null, 2));
}
