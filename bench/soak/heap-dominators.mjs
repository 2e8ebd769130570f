// What holds a V8 heap snapshot's memory: the dominator tree (an object's retained size is what a
// collection would free if it alone went away), printed from the root down to the subtrees of at
// least --min-mb, each with the edge that reached it; and the module source text V8 keeps, by package.
// Weak edges are not followed. Dominators by Cooper, Harvey and Kennedy's iterative algorithm.
// Usage: node --max-old-space-size=8000 bench/soak/heap-dominators.mjs FILE.heapsnapshot [--min-mb 1] [--depth 4]
import fs from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "min-mb": { type: "string", default: "1" }, depth: { type: "string", default: "4" } },
});
if (positionals.length !== 1) throw new Error("usage: heap-dominators.mjs FILE.heapsnapshot [--min-mb 1] [--depth 4]");

const snapshot = JSON.parse(fs.readFileSync(positionals[0], "utf8"));
const meta = snapshot.snapshot.meta;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const [TYPE, NAME, SIZE, EDGES] = ["type", "name", "self_size", "edge_count"].map((f) => meta.node_fields.indexOf(f));
const [ETYPE, ENAME, ETO] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f));
const [nodeTypes, edgeTypes] = [meta.node_types[0], meta.edge_types[0]];
const { nodes, edges, strings } = snapshot;
const count = nodes.length / NF;

const firstEdge = new Uint32Array(count + 1);
for (let i = 0, e = 0; i < count; i++) {
  firstEdge[i] = e;
  e += nodes[i * NF + EDGES] * EF;
  firstEdge[i + 1] = e;
}
const target = (e) => edges[e + ETO] / NF;
const followed = (e) => edgeTypes[edges[e + ETYPE]] !== "weak";
const edgeName = (e) => {
  const type = edgeTypes[edges[e + ETYPE]];
  return type === "element" || type === "hidden" ? `[${edges[e + ENAME]}]` : strings[edges[e + ENAME]];
};
const label = (i) => {
  const type = nodeTypes[nodes[i * NF + TYPE]];
  const name = String(strings[nodes[i * NF + NAME]])
    .slice(0, 70)
    .replace(/\s+/g, " ");
  return type === "object" || type === "native" ? name : `(${type}) ${name}`;
};

// Depth-first from the root (node 0): post-order numbers, and the edge each node was first reached by.
const postIndex = new Int32Array(count).fill(-1);
const reachedBy = new Int32Array(count).fill(-1);
const postOrder = [];
{
  const seen = new Uint8Array(count);
  const stack = [0];
  const next = [firstEdge[0]];
  seen[0] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    let e = next[next.length - 1];
    while (e < firstEdge[top + 1] && (!followed(e) || seen[target(e)])) e += EF;
    if (e < firstEdge[top + 1]) {
      next[next.length - 1] = e + EF;
      const child = target(e);
      seen[child] = 1;
      reachedBy[child] = e;
      stack.push(child);
      next.push(firstEdge[child]);
    } else {
      stack.pop();
      next.pop();
      postIndex[top] = postOrder.length;
      postOrder.push(top);
    }
  }
}

// Predecessors of each reachable node, in one flat array.
const predStart = new Uint32Array(count + 1);
for (const i of postOrder)
  for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) if (followed(e)) predStart[target(e) + 1]++;
for (let i = 0; i < count; i++) predStart[i + 1] += predStart[i];
const preds = new Uint32Array(predStart[count]);
const filled = predStart.slice(0, count);
for (const i of postOrder)
  for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) if (followed(e)) preds[filled[target(e)]++] = i;

const idom = new Int32Array(count).fill(-1);
idom[0] = 0;
const intersect = (a, b) => {
  while (a !== b) {
    while (postIndex[a] < postIndex[b]) a = idom[a];
    while (postIndex[b] < postIndex[a]) b = idom[b];
  }
  return a;
};
for (let changed = true; changed;) {
  changed = false;
  for (let k = postOrder.length - 1; k >= 0; k--) {
    const node = postOrder[k];
    if (node === 0) continue;
    let dominator = -1;
    for (let p = predStart[node]; p < predStart[node + 1]; p++) {
      const pred = preds[p];
      if (idom[pred] !== -1) dominator = dominator === -1 ? pred : intersect(pred, dominator);
    }
    if (dominator !== -1 && idom[node] !== dominator) {
      idom[node] = dominator;
      changed = true;
    }
  }
}

const retained = new Float64Array(count);
const dominated = new Map();
for (const node of postOrder) {
  retained[node] += nodes[node * NF + SIZE];
  if (node === 0) continue;
  retained[idom[node]] += retained[node];
  if (!dominated.has(idom[node])) dominated.set(idom[node], []);
  dominated.get(idom[node]).push(node);
}

const mb = (bytes) => (bytes / 1e6).toFixed(2);
const minBytes = Number(values["min-mb"]) * 1e6;
console.log(`reachable: ${mb(retained[0])} MB in ${postOrder.length} of ${count} nodes`);
function print(node, depth) {
  const children = (dominated.get(node) ?? []).filter((c) => retained[c] >= minBytes);
  for (const child of children.sort((a, b) => retained[b] - retained[a])) {
    const via = reachedBy[child] >= 0 ? edgeName(reachedBy[child]) : "?";
    console.log(`${"  ".repeat(depth)}${mb(retained[child])} MB  ${label(child)}  <- ${via}`);
    if (depth + 1 < Number(values.depth)) print(child, depth + 1);
  }
}
print(0, 0);

// Module source text: the strings scripts hold as their `source`, by package or build chunk.
const sourceBytes = new Map();
for (let i = 0; i < count; i++)
  for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) {
    if (edgeTypes[edges[e + ETYPE]] === "element" || strings[edges[e + ENAME]] !== "source") continue;
    const script = String(strings[nodes[i * NF + NAME]]);
    const owner = script.includes("/.next/")
      ? ".next (the build)"
      : (/node_modules\/(@[^/]+\/[^/]+|[^/]+)/.exec(script)?.[1] ?? (script.startsWith("node:") ? "node:" : "other"));
    sourceBytes.set(owner, (sourceBytes.get(owner) ?? 0) + nodes[target(e) * NF + SIZE]);
  }
const sources = [...sourceBytes].sort((a, b) => b[1] - a[1]);
console.log(`module source text: ${mb(sources.reduce((sum, [, bytes]) => sum + bytes, 0))} MB`);
for (const [owner, bytes] of sources.slice(0, 12)) console.log(`  ${mb(bytes)} MB  ${owner}`);
