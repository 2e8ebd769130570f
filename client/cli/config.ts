import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where `svc login` keeps the address and token (mode 0600): SVC_CONFIG, else ~/.config/svc-forge/cli.json. */
export const configPath = (): string => process.env.SVC_CONFIG ?? path.join(os.homedir(), ".config", "svc-forge", "cli.json");

export interface CliConfig {
  url: string;
  token?: string;
}

/** The saved login, overridden by SVC_URL and SVC_TOKEN when set. */
export function loadConfig(): CliConfig {
  let saved: Partial<CliConfig> = {};
  try {
    saved = JSON.parse(fs.readFileSync(configPath(), "utf8")) as Partial<CliConfig>;
  } catch {
    // No login yet.
  }
  return { url: process.env.SVC_URL || saved.url || "http://localhost:3000", token: process.env.SVC_TOKEN || saved.token };
}

export function saveConfig(config: CliConfig): void {
  fs.mkdirSync(path.dirname(configPath()), { recursive: true, mode: 0o700 });
  fs.writeFileSync(configPath(), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}
