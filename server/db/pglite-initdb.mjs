// Makes the new PGlite data directory named by the argument. The server runs it as a child
// (server/db/client.ts): done in the server, initdb's WebAssembly module and memory would stay
// reachable for the server's life. initdb takes ~12 s of CPU and ~1 GB of memory here, and what it
// writes depends only on PGlite's version: the first one is kept beside the dependencies
// (node_modules/.cache/svc-forge, pglite-initdb-kept.mjs) and later data directories are copies of
// it (this child then takes ~0.6 s). Tests, benchmarks and end-to-end runs start dozens of servers
// on new data directories.
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { KEPT_INITDB_DIR as kept } from "./pglite-initdb-kept.mjs";

const dataDir = process.argv[2];

if (fs.existsSync(path.join(kept, "PG_VERSION"))) {
  fs.cpSync(kept, dataDir, { recursive: true });
} else {
  const db = new PGlite(dataDir);
  await db.waitReady;
  await db.close();
  keep(dataDir);
}
ownerOnly(dataDir);

/**
 * The database's folders are the owner's alone (0700), and its files as made 0600, however the
 * cache's copy was made: a copy takes the modes of what it copies, not this process's umask.
 * PGlite writes its files 0666 (those it makes later too): the folders are what keep them, and a
 * sandboxed run's uid can search DATA_DIR (README: SANDBOX_ENABLED).
 */
function ownerOnly(dir) {
  fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    fs.chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600);
}

/**
 * Copies what initdb made into the cache under a name of its own, then renames it into place: a
 * reader sees the whole directory or none. Not kept when another first start kept its own first
 * (the same content) or the dependencies' folder is read-only.
 */
function keep(made) {
  const staging = `${kept}.${process.pid}`;
  try {
    fs.mkdirSync(path.dirname(kept), { recursive: true });
    fs.cpSync(made, staging, { recursive: true });
    fs.renameSync(staging, kept);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
