import fs from "node:fs";
import path from "node:path";
import { conflict } from "@/server/errors";

/**
 * PGlite allows one process per data directory: a second one opening it corrupts it. The process
 * that opens it holds `<dir>.lock`, a file with its pid, created exclusively and removed when it
 * closes the database or exits. A lock whose process is gone (a crash, kill -9) is stale and taken over.
 */
const lockFileOf = (dataDir: string) => `${dataDir}.lock`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function holderOf(file: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Takes the lock of an embedded data directory for this process; returns its release. */
export function lockDataDir(dataDir: string): () => void {
  const file = lockFileOf(dataDir);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  for (;;) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const pid = holderOf(file);
    if (pid !== null && pid !== process.pid && isAlive(pid)) {
      throw conflict(
        `The embedded database ${dataDir} is open in process ${pid} (a running server?), and only one process may open it. ` +
          "Stop that process first, or ask it instead: a running server takes backups with POST /api/admin/backups (X-Admin-API-Key) and creates users with POST /api/admin/users.",
        "CONFLICT",
      );
    }
    // Stale (its process is gone), or ours from an earlier open: replace it.
    fs.rmSync(file, { force: true });
  }
  const release = () => {
    if (holderOf(file) === process.pid) fs.rmSync(file, { force: true });
    process.off("exit", release);
  };
  process.on("exit", release);
  return release;
}
