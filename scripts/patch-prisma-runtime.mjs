// Run by `npm install` (postinstall). Two edits of Prisma's installed runtime, each measured.
//
// 1. Prisma's client keeps its parameterization graph (which query
// arguments are values) as one object per schema node, keyed by the index of the field name in a
// table of every name in the schema: `edges[412] = ...`. V8 stores small integer keys of a new
// object as a flat array as long as the highest index, so our ~3,000 nodes hold about 15 MB of
// holes for the life of the server (a third of the live heap on PostgreSQL, measured with a heap
// snapshot under bench/users-me). Keyed by a Map instead, the same graph takes a few hundred KB.
//
// 2. The generated client compiles the query compiler's WebAssembly from a module that exports it as
// a 2.2 MB base64 string literal: the module's source and the string both stay in the heap for the
// life of the process (4.5 MB, against 0.4 MB read from a file; Node 22). The string moves to a file
// beside the module, which exports an object that reads it when converted to a string (the client
// decodes it with Buffer.from(wasm, "base64"), which converts through valueOf).
//
// The edits are exact and idempotent; when a Prisma upgrade changes the code, install fails here, so
// whoever upgrades re-checks the heap and this patch (drop each once Prisma stores it compactly).
import fs from "node:fs";
import path from "node:path";
import { applyExactEdits } from "./exact-edits.mjs";

/** Usage: node scripts/patch-prisma-runtime.mjs [runtime folder, Prisma's installed one by default] */
const runtime = path.resolve(
  process.argv[2] ?? path.join(import.meta.dirname, "../node_modules/@prisma/client/runtime"),
);
const FILES = ["client.js", "client.mjs"];
/** [original, patched, occurrences] in the graph's deserializer and its two readers. */
const EDITS = [
  [",o={};for(let s=0;s<i;s++){let a=this.#i(),", ",o=new Map;for(let s=0;s<i;s++){let a=this.#i(),", 2],
  ["o[a]=S}r.push({edges:o})", "o.set(a,S)}r.push({edges:o})", 1],
  ["o[a]=P}r.push({edges:o})", "o.set(a,P)}r.push({edges:o})", 1],
  ["let o=n.edges[i];", "let o=n.edges.get(i);", 2],
];

for (const file of FILES)
  applyExactEdits(path.join(runtime, file), EDITS, { label: "patch-prisma-runtime", dependency: "Prisma" });

const WASM_MODULE = "query_compiler_small_bg.postgresql.wasm-base64.mjs";
const WASM_TEXT = "query_compiler_small_bg.postgresql.wasm-base64.txt";
const WASM_LITERAL = /^const wasm = "([A-Za-z0-9+/=]+)";\nexport \{ wasm \}\n?$/;
const WASM_READER = `// Patched by svc-forge's scripts/patch-prisma-runtime.mjs: the base64 is read from ${WASM_TEXT} when used.
import { readFileSync } from "node:fs";
const wasm = { valueOf: () => readFileSync(new URL("./${WASM_TEXT}", import.meta.url), "latin1") };
export { wasm }
`;

const wasmModule = path.join(runtime, WASM_MODULE);
const wasmSource = fs.readFileSync(wasmModule, "utf8");
if (wasmSource !== WASM_READER) {
  const literal = WASM_LITERAL.exec(wasmSource);
  if (!literal)
    throw new Error(
      `patch-prisma-runtime: ${wasmModule} is not a base64 literal export; Prisma changed, re-check the patch`,
    );
  fs.writeFileSync(path.join(runtime, WASM_TEXT), literal[1]);
  fs.writeFileSync(wasmModule, WASM_READER);
  console.log(`patch-prisma-runtime: patched ${WASM_MODULE}`);
}
