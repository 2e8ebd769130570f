import fs from "node:fs";
import { config } from "@/server/config";

/**
 * DATA_DIR holds the database, the repositories, backups and generated secrets: they are the
 * owner's alone, whatever umask the process was started with. Directories are made (or made again)
 * 0700, and the umask makes everything created later 0600 / 0700, git's files included. PGlite
 * writes its files 0666 whatever the umask: its folders are 0700 (server/db/pglite-initdb.mjs).
 */
export function protectDataDir(): void {
  process.umask(0o077);
  for (const dir of new Set([config.dataDir, config.reposDir, config.backupDir])) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  }
}
