import { compileExpression, type Compiled } from "./expressions";
import { parseCron, type CronSchedule } from "./cron";
import { parseDuration } from "./durations";

/** What the executor needs to know about one function, from the handler's sync answer. */
export interface FunctionSpec {
  id: string;
  name: string;
  eventTriggers: Array<{ event: string; expression: string | null; matches: Compiled | null }>;
  cron: { expression: string; schedule: CronSchedule } | null;
  maxAttempts: number;
  concurrency: { limit: number; key: Compiled | null } | null;
  cancel: Array<{ event: string; matches: Compiled | null; timeoutMs: number | null }>;
}

// The SDK's default: 3 retries, so 4 attempts.
const DEFAULT_RETRIES = 3;

// Options the executor implements; anything else in a function's configuration is refused.
const SUPPORTED_KEYS = new Set(["id", "name", "triggers", "steps", "concurrency", "cancel"]);

interface RawConfig {
  id: string;
  name?: string;
  triggers?: Array<{ event?: string; expression?: string; cron?: string; jitter?: string }>;
  steps?: Record<string, { retries?: { attempts?: number } }>;
  concurrency?: unknown;
  cancel?: Array<{ event: string; if?: string; timeout?: string }>;
  [key: string]: unknown;
}

function compileOrRefuse(source: string, where: string): Compiled {
  try {
    return compileExpression(source);
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
  }
}

function readConcurrency(raw: unknown, fnId: string): FunctionSpec["concurrency"] {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === "number") return { limit: raw, key: null };
  const entries = Array.isArray(raw) ? raw : [raw];
  if (entries.length !== 1) throw new Error(`${fnId}: only one concurrency limit is supported`);
  const entry = entries[0] as { limit: number; key?: string; scope?: string };
  if (entry.scope && entry.scope !== "fn")
    throw new Error(`${fnId}: concurrency scope "${entry.scope}" is not supported`);
  if (!Number.isInteger(entry.limit) || entry.limit < 1)
    throw new Error(`${fnId}: concurrency limit must be a positive integer`);
  return { limit: entry.limit, key: entry.key ? compileOrRefuse(entry.key, `${fnId} concurrency key`) : null };
}

/** Turns one synced configuration into a spec, refusing options the executor does not implement. */
export function readFunctionConfig(raw: RawConfig): FunctionSpec {
  const unsupported = Object.keys(raw).filter(
    (key) => raw[key] !== undefined && raw[key] !== null && !SUPPORTED_KEYS.has(key),
  );
  if (unsupported.length)
    throw new Error(`${raw.id}: option(s) ${unsupported.join(", ")} not supported by the embedded executor`);
  const spec: FunctionSpec = {
    id: raw.id,
    name: raw.name ?? raw.id,
    eventTriggers: [],
    cron: null,
    maxAttempts: (raw.steps?.step?.retries?.attempts ?? DEFAULT_RETRIES) + 1,
    concurrency: readConcurrency(raw.concurrency, raw.id),
    cancel: (raw.cancel ?? []).map((rule) => ({
      event: rule.event,
      matches: rule.if ? compileOrRefuse(rule.if, `${raw.id} cancelOn`) : null,
      timeoutMs: rule.timeout ? parseDuration(rule.timeout) : null,
    })),
  };
  for (const trigger of raw.triggers ?? []) {
    if (trigger.cron !== undefined) {
      if (trigger.jitter) throw new Error(`${raw.id}: cron jitter is not supported`);
      if (spec.cron) throw new Error(`${raw.id}: only one cron trigger is supported`);
      spec.cron = { expression: trigger.cron, schedule: parseCron(trigger.cron) };
    } else if (trigger.event) {
      const expression = trigger.expression ?? null;
      spec.eventTriggers.push({
        event: trigger.event,
        expression,
        matches: expression ? compileOrRefuse(expression, `${raw.id} trigger`) : null,
      });
    } else {
      throw new Error(`${raw.id}: unsupported trigger ${JSON.stringify(trigger)}`);
    }
  }
  return spec;
}

/** Reads the `functions` of an in-band sync answer. */
export function readSyncAnswer(body: unknown): FunctionSpec[] {
  const functions = (body as { functions?: RawConfig[] } | null)?.functions;
  if (!Array.isArray(functions)) throw new Error("the serve handler's sync answer has no functions");
  return functions.map(readFunctionConfig);
}
