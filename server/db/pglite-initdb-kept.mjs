// Where pglite-initdb.mjs keeps initdb's first output: beside the dependencies, by PGlite's version
// (what initdb writes depends on nothing else).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The package's entry is dist/index.js; its package.json is not in its exports.
const pgliteDir = path.resolve(path.dirname(fileURLToPath(import.meta.resolve("@electric-sql/pglite"))), "..");
const { version } = JSON.parse(fs.readFileSync(path.join(pgliteDir, "package.json"), "utf8"));

export const KEPT_INITDB_DIR = path.join(pgliteDir, "..", "..", ".cache", "svc-forge", `pglite-${version}-initdb`);
