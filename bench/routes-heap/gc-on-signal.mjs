// Preloaded into the server by run.mjs (with --expose-gc): on SIGUSR2, three full collections, then
// one JSON line of the process's resident size and heap to the file ROUTES_HEAP_LOG names.
import fs from "node:fs";

process.on("SIGUSR2", () => {
  for (let i = 0; i < 3; i++) global.gc();
  const { heapUsed, heapTotal } = process.memoryUsage();
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]);
  const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  fs.appendFileSync(
    process.env.ROUTES_HEAP_LOG,
    `${JSON.stringify({ rssMB: mb(rssKb * 1024), heapUsedMB: mb(heapUsed), heapTotalMB: mb(heapTotal) })}\n`,
  );
});
