import pino, { type DestinationStream, type Logger } from "pino";
import { config } from "./config";

/**
 * The service's structured log: one JSON line per event on stdout, at LOG_LEVEL. Nothing secret
 * goes in: callers log ids, kinds and route patterns, never headers, bodies or query strings, and
 * the redaction below is a second line of defence for the fields that could carry one.
 */
const REDACT = ["authorization", "cookie", "token", "secret", "password", "headers.authorization", "headers.cookie", "*.token", "*.secret"];

const holder = globalThis as unknown as { __svcLog?: { level: string; destination?: DestinationStream; logger: Logger }; __svcLogDestination?: DestinationStream };

export function log(): Logger {
  const level = config.logLevel;
  const destination = holder.__svcLogDestination;
  if (holder.__svcLog?.level !== level || holder.__svcLog.destination !== destination) {
    const options = { level, base: { service: "svc-forge" }, redact: { paths: REDACT, censor: "[redacted]" } };
    holder.__svcLog = { level, destination, logger: destination ? pino(options, destination) : pino(options) };
  }
  return holder.__svcLog.logger;
}

/** Sends the log lines somewhere other than stdout (tests read them), or back to stdout (undefined). */
export function setLogDestination(destination: DestinationStream | undefined): void {
  holder.__svcLogDestination = destination;
}
