import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type DestinationStream, type Logger } from "pino";
import { config } from "./config";

/**
 * The service's structured log: one JSON line per event on stdout, at LOG_LEVEL. Nothing secret
 * goes in: callers log ids, kinds and route patterns, never headers, bodies or query strings, and
 * the redaction below is a second line of defence for the fields that could carry one. A line
 * written while a request is answered names its `requestId` (`withRequestLog`); errors go in `err`.
 */
const REDACT = [
  "authorization",
  "cookie",
  "token",
  "secret",
  "password",
  "headers.authorization",
  "headers.cookie",
  "*.token",
  "*.secret",
];

const holder = globalThis as unknown as {
  __svcLog?: { level: string; destination?: DestinationStream; logger: Logger };
  __svcLogDestination?: DestinationStream;
  __svcLogRequest?: AsyncLocalStorage<{ requestId: string; open: boolean }>;
};
// On globalThis: Next.js's module copies must see the request id the REST pipeline set.
const requestScope = (holder.__svcLogRequest ??= new AsyncLocalStorage());

/**
 * Runs `work` with every log line it writes (however deep) naming `requestId`. A timer or connection
 * that work started outlives the request with its context: once the request has ended, its lines
 * name no request.
 */
export async function withRequestLog<T>(requestId: string, work: () => Promise<T>): Promise<T> {
  const scope = { requestId, open: true };
  try {
    return await requestScope.run(scope, work);
  } finally {
    scope.open = false;
  }
}

function requestIdField(): { requestId?: string } {
  const scope = requestScope.getStore();
  return scope?.open ? { requestId: scope.requestId } : {};
}

export function log(): Logger {
  const level = config.logLevel;
  const destination = holder.__svcLogDestination;
  if (holder.__svcLog?.level !== level || holder.__svcLog.destination !== destination) {
    const options = {
      level,
      base: { service: "svc-forge" },
      redact: { paths: REDACT, censor: "[redacted]" },
      mixin: requestIdField,
    };
    holder.__svcLog = { level, destination, logger: destination ? pino(options, destination) : pino(options) };
  }
  return holder.__svcLog.logger;
}

/** Sends the log lines somewhere other than stdout (tests read them), or back to stdout (undefined). */
export function setLogDestination(destination: DestinationStream | undefined): void {
  holder.__svcLogDestination = destination;
}
