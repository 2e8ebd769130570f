import pino, { type Logger } from "pino";
import { config } from "./config";

/**
 * The service's structured log: one JSON line per event on stdout, at LOG_LEVEL. Nothing secret
 * goes in: callers log ids, kinds and route patterns, never headers, bodies or query strings, and
 * the redaction below is a second line of defence for the fields that could carry one.
 */
const REDACT = ["authorization", "cookie", "token", "secret", "password", "headers.authorization", "headers.cookie", "*.token", "*.secret"];

const holder = globalThis as unknown as { __svcLog?: { level: string; logger: Logger } };

export function log(): Logger {
  const level = config.logLevel;
  if (holder.__svcLog?.level !== level) {
    holder.__svcLog = { level, logger: pino({ level, base: { service: "svc-forge" }, redact: { paths: REDACT, censor: "[redacted]" } }) };
  }
  return holder.__svcLog.logger;
}
