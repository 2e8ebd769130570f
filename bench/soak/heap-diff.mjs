// Compares two V8 heap snapshots (.heapsnapshot, e.g. written by bench/soak --snapshots) by
// constructor: count and self size of each in A and B, the constructors that grew most first. With
// --retainers NAME, also what holds that constructor's objects (the retainer's constructor and the
// edge's name, counted in A and B; prototype links left out), the edges that grew most first.
// Usage: node bench/soak/heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top 30] [--retainers NAME]
import fs from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" }, retainers: { type: "string" } },
});
if (positionals.length !== 2)
  throw new Error("usage: heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top 30] [--retainers NAME]");

function load(file) {
  const snapshot = JSON.parse(fs.readFileSync(file, "utf8"));
  const meta = snapshot.snapshot.meta;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const at = (name) => meta.node_fields.indexOf(name);
  const [TYPE, NAME, SIZE, EDGES] = [at("type"), at("name"), at("self_size"), at("edge_count")];
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const [ETYPE, ENAME, ETO] = ["type", "name_or_index", "to_node"].map((n) => meta.edge_fields.indexOf(n));
  const { nodes, edges, strings } = snapshot;
  const count = nodes.length / nodeFields;
  // A node's label: its constructor for objects, its kind otherwise ("(string)", "(closure)"...).
  const label = (i) => {
    const type = nodeTypes[nodes[i * nodeFields + TYPE]];
    return type === "object" || type === "native" ? strings[nodes[i * nodeFields + NAME]] : `(${type})`;
  };
  const byLabel = new Map();
  for (let i = 0; i < count; i++) {
    const entry = byLabel.get(label(i)) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += nodes[i * nodeFields + SIZE];
    byLabel.set(label(i), entry);
  }
  const retainersOf = (name) => {
    const held = new Map();
    let edge = 0;
    for (let i = 0; i < count; i++) {
      const from = label(i);
      for (let e = 0; e < nodes[i * nodeFields + EDGES]; e++, edge += edgeFields) {
        const to = edges[edge + ETO] / nodeFields;
        if (label(to) !== name) continue;
        const type = edgeTypes[edges[edge + ETYPE]];
        if (type === "weak" || type === "shortcut") continue;
        if (type === "property" && ["__proto__", "prototype", "map"].includes(strings[edges[edge + ENAME]])) continue;
        const key = `${from} --${type === "element" || type === "hidden" ? "[]" : strings[edges[edge + ENAME]]}-->`;
        held.set(key, (held.get(key) ?? 0) + 1);
      }
    }
    return held;
  };
  return { byLabel, retainersOf };
}

const [a, b] = positionals.map(load);
const rows = [...new Set([...a.byLabel.keys(), ...b.byLabel.keys()])].map((name) => {
  const before = a.byLabel.get(name) ?? { count: 0, size: 0 };
  const after = b.byLabel.get(name) ?? { count: 0, size: 0 };
  return {
    name,
    countA: before.count,
    countB: after.count,
    kbA: Math.round(before.size / 1024),
    kbB: Math.round(after.size / 1024),
    kbGrowth: Math.round((after.size - before.size) / 1024),
  };
});
rows.sort((x, y) => y.kbGrowth - x.kbGrowth);
const total = (side) => Math.round([...side.byLabel.values()].reduce((s, e) => s + e.size, 0) / 1024);
console.log(`total self size: A ${total(a)} KB, B ${total(b)} KB`);
console.table(rows.slice(0, Number(values.top)));
if (values.retainers) {
  const [before, after] = [a.retainersOf(values.retainers), b.retainersOf(values.retainers)];
  const edges = [...after].map(([edge, count]) => ({
    edge,
    countA: before.get(edge) ?? 0,
    countB: count,
    growth: count - (before.get(edge) ?? 0),
  }));
  console.table(edges.sort((x, y) => y.growth - x.growth).slice(0, Number(values.top)));
}
