// Sums a V8 CPU profile (.cpuprofile) by package and by function: where the CPU went.
// Usage: node bench/support/profile-summary.mjs FILE [--functions 30]
//          [--from S] [--to S] (only the samples between S and S seconds from the profile's start:
//                               compare a soak's first minutes with its last)
//          [--inclusive] (also each function's time with what it called: which operation grew)
//          [--callers TEXT] (for the functions whose name holds TEXT, e.g. writev: the chains of
//                            callers, nearest first, that their time was spent under)
//          [--stalls MS] (each stretch of the thread busy for MS or more without an idle sample,
//                         with the functions it spent itself in: what held the event loop)
// A production build's functions are named by their place in the sources: the profile's chunks are
// mapped through the `.js.map` files beside them (node:module's SourceMap).
import fs from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    functions: { type: "string", default: "30" },
    from: { type: "string" },
    to: { type: "string" },
    inclusive: { type: "boolean", default: false },
    stalls: { type: "string" },
    callers: { type: "string" },
  },
});
const prof = JSON.parse(fs.readFileSync(positionals[0], "utf8"));
const FUNCTIONS = Number(values.functions);
const fromUs = values.from === undefined ? -Infinity : Number(values.from) * 1e6;
const toUs = values.to === undefined ? Infinity : Number(values.to) * 1e6;

const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parentOf = new Map();
for (const n of prof.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);

const category = (url) => {
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

const sourceMaps = new Map();
function sourceMapOf(url) {
  if (!sourceMaps.has(url)) {
    let map = null;
    try {
      const file = url.startsWith("file:") ? fileURLToPath(url) : url;
      if (file.startsWith("/") && fs.existsSync(`${file}.map`)) {
        map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, "utf8")));
      }
    } catch {
      map = null;
    }
    sourceMaps.set(url, map);
  }
  return sourceMaps.get(url);
}

const labels = new Map();
function labelOf(node) {
  if (labels.has(node.id)) return labels.get(node.id);
  const { url, functionName, lineNumber, columnNumber } = node.callFrame;
  let label = `${functionName || "(anon)"} ${category(url)}:${lineNumber}`;
  const entry = url ? sourceMapOf(url)?.findEntry(lineNumber, columnNumber) : undefined;
  if (entry?.originalSource) {
    const source = entry.originalSource.replace(/^.*?(node_modules\/|server\/|app\/|lib\/)/, "$1");
    label = `${entry.name ?? functionName ?? "(anon)"} ${source}:${entry.originalLine + 1}`;
  }
  labels.set(node.id, label);
  return label;
}
const isIdle = (node) => node.callFrame.functionName === "(idle)";

const selfByCategory = new Map();
const selfByFunction = new Map();
const inclusiveByFunction = new Map();
const add = (map, key, t) => map.set(key, (map.get(key) ?? 0) + t);
let total = 0;
let busy = 0;
let at = 0;
const callerChains = new Map();
const CALLER_DEPTH = 4;
/** The chain of the first CALLER_DEPTH callers of `node` that are named in our or a package's sources. */
function callersOf(node) {
  const chain = [];
  for (let id = parentOf.get(node.id); id !== undefined && chain.length < CALLER_DEPTH; id = parentOf.get(id)) {
    const label = labelOf(nodes.get(id));
    if (!/ (\(native\/vm\)|node:)/.test(label) && chain.at(-1) !== label) chain.push(label);
  }
  return chain.join(" < ");
}
const stallMs = values.stalls === undefined ? undefined : Number(values.stalls);
const stalls = [];
let stretch = null;

for (let i = 0; i < prof.samples.length; i++) {
  const dt = prof.timeDeltas[i] ?? 0;
  at += dt;
  if (at < fromUs || at > toUs) continue;
  const node = nodes.get(prof.samples[i]);
  total += dt;
  add(selfByCategory, category(node.callFrame.url), dt);
  add(selfByFunction, labelOf(node), dt);
  if (!isIdle(node)) busy += dt;
  if (values.callers && labelOf(node).includes(values.callers)) add(callerChains, callersOf(node), dt);
  if (values.inclusive) {
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parentOf.get(id)) {
      const label = labelOf(nodes.get(id));
      if (seen.has(label)) continue;
      seen.add(label);
      add(inclusiveByFunction, label, dt);
    }
  }
  if (stallMs !== undefined) {
    if (isIdle(node)) {
      if (stretch && stretch.us >= stallMs * 1000) stalls.push(stretch);
      stretch = null;
    } else {
      stretch ??= { startUs: at, us: 0, self: new Map() };
      stretch.us += dt;
      add(stretch.self, labelOf(node), dt);
    }
  }
}
if (stretch && stallMs !== undefined && stretch.us >= stallMs * 1000) stalls.push(stretch);

const show = (map, n, whole = total) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .forEach(([k, t]) =>
      console.log(`${(t / 1000).toFixed(0).padStart(7)} ms ${((100 * t) / whole).toFixed(1).padStart(5)}%  ${k}`),
    );
console.log(`total ${(total / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms`);
show(selfByCategory, 25);
console.log("--- functions, self");
show(selfByFunction, FUNCTIONS);
if (values.inclusive) {
  console.log("--- functions, with what they called");
  show(inclusiveByFunction, FUNCTIONS);
}
if (values.callers) {
  console.log(`--- under what ${values.callers} was called`);
  show(callerChains, FUNCTIONS);
}
if (stallMs !== undefined) {
  console.log(`--- ${stalls.length} stretches busy for ${stallMs} ms or more`);
  for (const s of stalls.sort((a, b) => b.us - a.us).slice(0, 10)) {
    console.log(`at ${(s.startUs / 1e6).toFixed(1)} s: ${(s.us / 1000).toFixed(0)} ms`);
    show(s.self, 8, s.us);
  }
}
