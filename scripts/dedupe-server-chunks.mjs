// Run by scripts/build.mjs after `next build`. Turbopack writes a server chunk for each group of
// routes, and groups that need the same modules get files that differ only in their name and the
// source map comment naming it (Next.js 16.4: 12 copies of the 2 MB chunk holding the server's own
// code, 3 of another 0.6 MB). A route keeps the source text of every chunk it loads in the heap, so
// each further route an instance serves (git, MCP, tRPC, the pages) held ~5 MB more of the same
// text. Every reference now names one file per content, and the other files are removed.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writeByRename } from "./write-by-rename.mjs";

const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=[^\n]*\n?$/;

function* filesUnder(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full);
    else if (entry.isFile()) yield full;
  }
}

const contentKey = (file) =>
  crypto.createHash("sha256").update(fs.readFileSync(file, "utf8").replace(SOURCE_MAP_COMMENT, "")).digest("hex");

/**
 * The server chunks under `nextDir` (`.next`) whose content another has: each file -> the file kept
 * for its content (the first by name, in the same folder).
 */
export function duplicateServerChunks(nextDir) {
  const chunksDir = path.join(nextDir, "server", "chunks");
  const keptByContent = new Map();
  const duplicates = new Map();
  if (!fs.existsSync(chunksDir)) return duplicates;
  const chunks = [...filesUnder(chunksDir)].filter((file) => file.endsWith(".js")).sort();
  for (const file of chunks) {
    const key = `${path.dirname(file)}\0${contentKey(file)}`;
    const kept = keptByContent.get(key);
    if (kept) duplicates.set(file, kept);
    else keptByContent.set(key, file);
  }
  return duplicates;
}

/** Chunk names are content hashes, unique in the build, so a name is replaced wherever it is written. */
function rewriteReferences(nextDir, renames) {
  const names = [...renames.keys()];
  if (names.length === 0) return;
  const pattern = new RegExp(names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  for (const file of filesUnder(nextDir)) {
    if (file.endsWith(".map") || !/\.(js|json)$/.test(file)) continue;
    const text = fs.readFileSync(file, "utf8");
    const rewritten = text.replace(pattern, (name) => renames.get(name));
    if (rewritten === text) continue;
    writeByRename(file, rewritten);
  }
}

/**
 * Points every reference under `nextDir` (`.next`) at one server chunk per content and removes the
 * others with their source maps. Answers how many files were removed and their bytes.
 */
export function dedupeServerChunks(nextDir) {
  const duplicates = duplicateServerChunks(nextDir);
  const renames = new Map([...duplicates].map(([file, kept]) => [path.basename(file), path.basename(kept)]));
  rewriteReferences(nextDir, renames);
  let bytes = 0;
  for (const file of duplicates.keys()) {
    bytes += fs.statSync(file).size;
    fs.rmSync(file);
    fs.rmSync(`${file}.map`, { force: true });
  }
  return { removed: duplicates.size, bytes };
}
