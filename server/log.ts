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
  __svcLogRequest?: AsyncLocalStorage<{ requestId: string; open: boolean; waits?: RequestWaits }>;
};
// On globalThis: Next.js's module copies must see the request id the REST pipeline set.
const requestScope = (holder.__svcLogRequest ??= new AsyncLocalStorage());

/**
 * What a request waited on, for its log line: the database (statements sent and the time to their
 * answers, queueing behind other requests' for a connection included) and the ref locks.
 */
export interface RequestWaits {
  dbMs: number;
  dbCalls: number;
  lockMs: number;
  locks: number;
}
export const noWaits = (): RequestWaits => ({ dbMs: 0, dbCalls: 0, lockMs: 0, locks: 0 });

/**
 * Runs `work` with every log line it writes (however deep) naming `requestId`, and what it waits
 * on counted in `waits` (noteWait). A timer or connection that work started outlives the request
 * with its context: once the request has ended, its lines name no request and count nothing.
 */
export async function withRequestLog<T>(requestId: string, work: () => Promise<T>, waits?: RequestWaits): Promise<T> {
  const scope = { requestId, open: true, waits };
  try {
    return await requestScope.run(scope, work);
  } finally {
    scope.open = false;
  }
}

/** Counts `ms` of waiting on `what` to the request being answered, if any. */
export function noteWait(what: "db" | "lock", ms: number): void {
  const scope = requestScope.getStore();
  if (!scope?.open || !scope.waits) return;
  if (what === "lock") {
    scope.waits.lockMs += ms;
    scope.waits.locks++;
  } else {
    scope.waits.dbMs += ms;
    scope.waits.dbCalls++;
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
