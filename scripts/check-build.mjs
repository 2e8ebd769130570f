// Checks a production build (usage: node scripts/check-build.mjs <app> <build log>). Each filesystem
// access Turbopack cannot scope makes it trace the whole project into the server output (what a
// hosted deploy uploads); the build must report none, and its traces must hold what the server reads
// at run time (the migrations) and none of the repository's tests, benchmarks or docs. The server's
// chunks must be one file per content and one-byte text (what scripts/build.mjs makes of them).
import fs from "node:fs";
import path from "node:path";
import { duplicateServerChunks } from "./dedupe-server-chunks.mjs";
import { twoByteServerChunks } from "./one-byte-chunks.mjs";

const [app, log] = process.argv.slice(2);
const problems = [];

const warnings = fs
  .readFileSync(log, "utf8")
  .split("\n")
  .filter((line) => line.includes("Dynamic filesystem access"));
if (warnings.length > 0)
  problems.push(
    `${warnings.length} "Dynamic filesystem access" warning(s) in ${log}: scope the path or add /*turbopackIgnore: true*/`,
  );

const traces = fs
  .readdirSync(path.join(app, ".next/server"), { recursive: true })
  .filter((file) => file.endsWith(".nft.json"));
const projectFile = (trace, file) =>
  path.relative(app, path.resolve(path.dirname(path.join(app, ".next/server", trace)), file));
const strayTraces = traces.filter((trace) =>
  JSON.parse(fs.readFileSync(path.join(app, ".next/server", trace), "utf8")).files.some((file) =>
    /^(README\.md|docs|tests|bench|e2e)(\/|$)/.test(projectFile(trace, file)),
  ),
);
if (strayTraces.length > 0)
  problems.push(
    `${strayTraces.length} of ${traces.length} traces hold the repository's tests, benchmarks or docs (${strayTraces[0]}, ...)`,
  );
const startup = JSON.parse(fs.readFileSync(path.join(app, ".next/server/instrumentation.js.nft.json"), "utf8")).files;
if (!startup.some((file) => file.endsWith("prisma/migrations/migration_lock.toml")))
  problems.push("instrumentation.js does not trace prisma/migrations, which start-up applies");

const duplicates = [...duplicateServerChunks(path.join(app, ".next"))];
if (duplicates.length > 0)
  problems.push(
    `${duplicates.length} server chunks are copies of others (${path.basename(duplicates[0][0])} of ${path.basename(duplicates[0][1])}, ...): scripts/build.mjs did not dedupe them`,
  );
const twoByte = twoByteServerChunks(path.join(app, ".next"));
if (twoByte.length > 0)
  problems.push(
    `${twoByte.length} server chunks hold characters past Latin-1 that scripts/one-byte-chunks.mjs could not escape (${twoByte[0]}, ...): V8 keeps such a chunk's text at two bytes a character`,
  );

if (problems.length > 0) {
  console.error(`build check failed:\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
console.log(
  `build check: no untraceable filesystem access; ${traces.length} traces hold the migrations and no tests, benchmarks or docs; server chunks one per content, in one-byte text`,
);
