import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { config } from "@/server/config";

function readSecret(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8").trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The configured secret, or one generated once into DATA_DIR/<fileName> (mode 0600). The file
 * appears atomically (written aside, then hard-linked), so concurrent starters agree on one value.
 * Instances that do not share DATA_DIR must be given the secret in their environment.
 */
export function instanceSecret(fileName: string, configured: string | undefined): string {
  if (configured) return configured;
  const file = path.join(config.dataDir, fileName);
  const existing = readSecret(file);
  if (existing) return existing;
  fs.mkdirSync(config.dataDir, { recursive: true });
  const temp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`;
  fs.writeFileSync(temp, `${crypto.randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  try {
    fs.linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  const written = readSecret(file);
  if (!written) throw new Error(`${file} is empty`);
  return written;
}
