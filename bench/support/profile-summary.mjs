// Sums a V8 CPU profile (.cpuprofile) by package and by function, self time: where the CPU went.
// Usage: node bench/support/profile-summary.mjs FILE [functions to list, 30]
import fs from "node:fs";
const file = process.argv[2];
const prof = JSON.parse(fs.readFileSync(file, "utf8"));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas;
let total = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i];
  self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
  total += dt[i] ?? 0;
}
const cat = (url) => {
  if (!url) return "(native/vm)";
  if (url.includes("pglite-prisma-adapter")) return "pglite-adapter";
  if (url.includes("@electric-sql/pglite")) return "pglite";
  if (url.includes("@prisma") || url.includes("generated/prisma")) return "prisma";
  if (url.includes("node_modules/inngest")) return "inngest-sdk";
  if (url.includes("pino")) return "pino";
  if (url.includes("node_modules/zod")) return "zod";
  if (url.startsWith("node:")) return "node:" + url.split(/[:/]/)[1];
  if (url.includes("/server/jobs")) return "server/jobs";
  if (url.includes("node_modules/")) return "nm:" + url.split("node_modules/")[1].split("/")[0];
  return url.split("/").slice(-2).join("/");
};
const byCat = new Map();
const byFn = new Map();
for (const [id, t] of self) {
  const n = nodes.get(id);
  const c = cat(n.callFrame.url);
  byCat.set(c, (byCat.get(c) ?? 0) + t);
  const k = `${n.callFrame.functionName || "(anon)"} ${c}:${n.callFrame.lineNumber}`;
  byFn.set(k, (byFn.get(k) ?? 0) + t);
}
const show = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .forEach(([k, t]) =>
      console.log(`${(t / 1000).toFixed(0).padStart(7)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`),
    );
console.log("total", (total / 1000).toFixed(0), "ms");
show(byCat, 25);
console.log("--- functions");
show(byFn, Number(process.argv[3] ?? 30));
