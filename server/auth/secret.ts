import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { config } from "@/server/config";

const SECRET_FILE = "auth-secret";

function readSecret(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8").trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * AUTH_SECRET, or one generated once into DATA_DIR/auth-secret (mode 0600). The file appears
 * atomically (written aside, then hard-linked), so concurrent starters agree on one secret.
 */
export function authSecret(): string {
  if (config.authSecret) return config.authSecret;
  const file = path.join(config.dataDir, SECRET_FILE);
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
  return readSecret(file)!;
}
