import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Where `svc-forge login` keeps the address and token (mode 0600): SVC_CONFIG, else
 * $XDG_CONFIG_HOME/svc-forge/cli.json, else ~/.config/svc-forge/cli.json. A relative
 * XDG_CONFIG_HOME is ignored, as the XDG Base Directory specification says.
 */
export function configPath(): string {
  if (process.env.SVC_CONFIG) return process.env.SVC_CONFIG;
  const xdg = process.env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".config");
  return path.join(base, "svc-forge", "cli.json");
}

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
  return {
    url: process.env.SVC_URL || saved.url || "http://localhost:3000",
    token: process.env.SVC_TOKEN || saved.token,
  };
}

export function saveConfig(config: CliConfig): void {
  const file = configPath();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // The mode above applies only to a new file: one saved by an older version (or by hand) is narrowed too.
  fs.chmodSync(file, 0o600);
}
