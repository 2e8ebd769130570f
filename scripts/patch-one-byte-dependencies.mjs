// Run by `npm install` (postinstall). V8 keeps a loaded file's source text for the life of the
// process, two bytes a character when one character is past Latin-1 (an ellipsis in a comment is
// enough). These are the largest such files the production server loads from its dependencies
// (1.8 M characters, a heap snapshot's module text by package: docs/soak, round 32); their
// characters past Latin-1 are written as escapes with the same value (scripts/one-byte-chunks.mjs,
// as the build does for its own chunks). Install fails naming a file an upgrade removed.
import fs from "node:fs";
import path from "node:path";
import { oneByteSource } from "./one-byte-chunks.mjs";

export const ONE_BYTE_DEPENDENCY_FILES = [
  "isomorphic-git/index.cjs",
  "next/dist/compiled/next-server/app-page-turbo.runtime.prod.js",
  "next/dist/compiled/next-server/app-route-turbo.runtime.prod.js",
  "next/dist/compiled/comment-json/index.js",
  "next/dist/server/config.js",
  "next/dist/compiled/send/index.js",
];

/** Rewrites the listed files under `modules` (a node_modules folder); answers those it rewrote. */
export function patchOneByteDependencies(modules) {
  const rewritten = [];
  for (const name of ONE_BYTE_DEPENDENCY_FILES) {
    const file = path.join(modules, name);
    if (!fs.existsSync(file))
      throw new Error(`patch-one-byte-dependencies: ${file} is not there; a dependency changed, re-check the list`);
    const source = fs.readFileSync(file, "utf8");
    const escaped = oneByteSource(source);
    if (escaped === source) continue;
    fs.writeFileSync(file, escaped);
    rewritten.push(name);
  }
  return rewritten;
}

// Usage: node scripts/patch-one-byte-dependencies.mjs [the node_modules folder, the installed one by default]
if (process.argv[1] === import.meta.filename) {
  const modules = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, "../node_modules"));
  for (const name of patchOneByteDependencies(modules))
    console.log(`patch-one-byte-dependencies: ${name} in one-byte text`);
}
