// `npm run build` (always) and `npm start` / `npm ci` (`--if-stale`): `next build`, then a stamp of
// the sources it built (.next/svc-source-hash). With `--if-stale` the build is skipped when the
// stamp matches the sources as they are now, so a restart takes seconds. SVC_SKIP_BUILD=1 skips the
// install-time build (`.ci/run` builds its own shared copy). After `next build`, the server's
// chunks are made smaller in memory (dedupe-server-chunks.mjs, one-byte-chunks.mjs).
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dedupeServerChunks } from "./dedupe-server-chunks.mjs";
import { oneByteServerChunks, twoByteServerChunks } from "./one-byte-chunks.mjs";

const root = path.resolve(import.meta.dirname, "..");
const STAMP = path.join(root, ".next", "svc-source-hash");

/** Folders that are not part of the build: dependencies, outputs, data, tests, benchmarks, docs. */
const SKIPPED_DIRS = new Set([
  "node_modules",
  ".next",
  ".data",
  ".git",
  "generated",
  "tests",
  "e2e",
  "bench",
  "docs",
  ".ci",
  "coverage",
  "test-results",
  "playwright-report",
]);
const skippedFile = (name) => name.endsWith(".test.ts") || name.endsWith(".md") || name.endsWith(".tsbuildinfo");

function* sourceFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* sourceFiles(full);
    } else if (entry.isFile() && !skippedFile(entry.name)) yield full;
  }
}

/** SHA-256 over every source file's path and content (package-lock.json included: the dependencies). */
function sourceHash() {
  const hash = crypto.createHash("sha256");
  for (const file of sourceFiles(root))
    hash
      .update(`${path.relative(root, file)}\0`)
      .update(fs.readFileSync(file))
      .update("\0");
  return hash.digest("hex");
}

const built = () =>
  fs.existsSync(path.join(root, ".next", "BUILD_ID")) && fs.existsSync(STAMP)
    ? fs.readFileSync(STAMP, "utf8").trim()
    : undefined;

function compactServerChunks(nextDir) {
  const { removed, bytes } = dedupeServerChunks(nextDir);
  const rewritten = oneByteServerChunks(nextDir);
  const left = twoByteServerChunks(nextDir);
  const wide = left.length > 0 ? `; left with characters past Latin-1: ${left.join(", ")}` : "";
  process.stdout.write(
    `server chunks: ${removed} duplicates removed (${(bytes / 1e6).toFixed(1)} MB), ${rewritten.length} written in one-byte text${wide}\n`,
  );
}

function main() {
  const ifStale = process.argv.includes("--if-stale");
  if (ifStale && process.env.SVC_SKIP_BUILD === "1") return;
  const hash = sourceHash();
  if (ifStale && built() === hash) {
    process.stdout.write(`build of the current sources found (.next, ${hash.slice(0, 12)}); not rebuilding\n`);
    return;
  }
  fs.rmSync(STAMP, { force: true });
  execFileSync("npx", ["next", "build"], {
    cwd: root,
    stdio: "inherit",
    env: { NEXT_TELEMETRY_DISABLED: "1", ...process.env },
  });
  compactServerChunks(path.join(root, ".next"));
  // Hashed again: the build itself writes some sources (next-env.d.ts), and the next start sees them so.
  fs.writeFileSync(STAMP, `${sourceHash()}\n`);
}

main();
