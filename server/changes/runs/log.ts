import fs from "node:fs";
import path from "node:path";
import { config } from "@/server/config";

/** Where a run's log lives: with the project's other runs under DATA_DIR (removed with the project). */
export const runLogDir = (projectId: string) => path.join(config.dataDir, "runs", projectId);
export const runLogPath = (projectId: string, runId: string) => path.join(runLogDir(projectId), `${runId}.log`);

/** Removes a project's run logs (its deletion; idempotent). */
export async function removeProjectRunLogs(projectId: string): Promise<void> {
  await fs.promises.rm(runLogDir(projectId), { recursive: true, force: true });
}

/** Appends text to a run's log (evaluators whose output is not a process's: webhook, llm). */
export function appendRunLog(logPath: string, text: string): number {
  fs.mkdirSync(path.dirname(logPath), { recursive: true });
  fs.appendFileSync(logPath, text);
  return fs.statSync(logPath).size;
}

/** The log's bytes from `offset` (empty when it does not exist yet). */
export function readRunLog(logPath: string, offset = 0): Buffer {
  try {
    const size = fs.statSync(logPath).size;
    if (offset >= size) return Buffer.alloc(0);
    const buffer = Buffer.alloc(size - offset);
    const fd = fs.openSync(logPath, "r");
    try {
      fs.readSync(fd, buffer, 0, buffer.length, offset);
    } finally {
      fs.closeSync(fd);
    }
    return buffer;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
    throw error;
  }
}

/** The last `lines` lines of a text (a trailing newline does not count as a line). */
export function tailLines(text: string, lines: number): string {
  if (lines <= 0) return "";
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  const parts = body.split("\n");
  const kept = parts.slice(-lines).join("\n");
  return text.endsWith("\n") ? `${kept}\n` : kept;
}
