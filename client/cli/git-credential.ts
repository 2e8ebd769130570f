import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CliConfig } from "./config.js";

/**
 * The `svc-forge` entry point beside this file, run by git through the credential helper: compiled
 * (the package's bin), main.js itself; from the TypeScript sources, bin.mjs, which loads them
 * through tsx.
 */
const here = fileURLToPath(import.meta.url);
const binPath = path.join(path.dirname(here), path.extname(here) === ".ts" ? "bin.mjs" : "main.js");

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * The `credential.<url>.helper` value `clone` writes into the clone's .git/config: this CLI, which
 * reads the token from the saved login when git asks (the token itself never lands in the file).
 * A login saved under SVC_CONFIG is named, so git finds it from any shell.
 */
export function credentialHelperCommand(): string {
  const configEnv = process.env.SVC_CONFIG ? `SVC_CONFIG=${shellQuote(path.resolve(process.env.SVC_CONFIG))} ` : "";
  return `!${configEnv}${shellQuote(process.execPath)} ${shellQuote(binPath)} auth git-credential`;
}

/** git's credential protocol (gitcredentials(7)): `key=value` lines on stdin. */
function parseCredentialRequest(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1);
  }
  return fields;
}

/**
 * `svc-forge auth git-credential get|store|erase`: answers `get` with the saved token for the saved
 * server's protocol and host only (never for another host); `store` and `erase` are no-ops, the
 * login is managed by `svc-forge login`.
 */
export function answerGitCredential(action: string | undefined, config: CliConfig): string {
  if (action !== "get" || !config.token) return "";
  const asked = parseCredentialRequest(fs.readFileSync(0, "utf8"));
  const server = new URL(config.url);
  if (asked.protocol !== server.protocol.replace(/:$/, "") || asked.host !== server.host) return "";
  return `username=svc-forge\npassword=${config.token}\n`;
}
