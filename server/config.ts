import { AsyncLocalStorage } from "node:async_hooks";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import {
  RATE_LIMIT_ANONYMOUS_PER_MINUTE,
  RATE_LIMIT_PER_MINUTE,
  RATE_LIMIT_WINDOW_MS,
  RESTORE_ARCHIVE_BYTES_MAX,
  RESTORE_PUSH_TIMEOUT_MS,
  SEARCH_TIME_LIMIT_MS,
} from "./limits";

/**
 * Every environment variable the service reads, validated by one schema: a bad value stops the
 * start with a message naming the variable (`validateConfig()`), and nothing else reads
 * `process.env`. The environment is re-read when it changes, so tests and scripts can change it
 * at run time; parsing is cached on the raw values.
 */

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `must be a whole number from ${min} to ${max}`)
        .max(max, `must be a whole number from ${min} to ${max}`),
    );
const decimal = () =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a non-negative number")
    .transform(Number);
const flag = () => z.enum(["0", "1"], { message: "must be 1 (on) or 0 (off)" }).transform((value) => value === "1");
const httpUrl = () =>
  z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).transform((value) => value.replace(/\/+$/, ""));
/** A key of exactly 32 bytes in base64 (AES-256). */
const base64Key32 = () =>
  z
    .string()
    .refine(
      (value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, "base64").length === 32,
      "must be 32 bytes in base64 (e.g. openssl rand -base64 32)",
    );
const redisUrl = () => z.url({ protocol: /^rediss?$/, message: "must be a redis:// or rediss:// URL" });
const postgresUrl = () => z.string().regex(/^postgres(ql)?:\/\/\S+$/, "must be a postgresql:// URL");

const schema = z.object({
  PORT: integer(1, 65535).default(3000),
  /** Read by server.mjs: the interface to listen on (every interface when unset). */
  HOST: z.string().optional(),
  BASE_URL: httpUrl().optional(),
  DATA_DIR: z.string().default("./.data"),
  REPOS_DIR: z.string().optional(),
  BACKUP_DIR: z.string().optional(),
  /** Largest backup archive a restore takes (bytes): uploads beyond it get 413. */
  RESTORE_ARCHIVE_BYTES_MAX: integer(1).default(RESTORE_ARCHIVE_BYTES_MAX),
  /** A restore's bound on writing one repository; beyond it the restore fails with PUSH_TIMEOUT. */
  RESTORE_PUSH_TIMEOUT_MS: integer(1).default(RESTORE_PUSH_TIMEOUT_MS),
  SEARCH_TIME_LIMIT_MS: integer(1).default(SEARCH_TIME_LIMIT_MS),
  TRUST_PROXY: flag().default(false),
  DATABASE_URL: postgresUrl().optional(),
  DATABASE_POOL_SIZE: integer(1, 1000).default(10),
  DATABASE_CONNECT_TIMEOUT_SECONDS: integer(0, 3600).default(30),
  ADMIN_API_KEY: z.string().optional(),
  DEV_LOGIN: flag().default(false),
  DEPLOY_SECRET_KEY: base64Key32().optional(),
  /** The key being rotated out: still read, never written (see `npm run svc -- secrets:rekey`). */
  DEPLOY_SECRET_KEY_PREVIOUS: base64Key32().optional(),
  /** The deploy queue binding: `jobs` (the Inngest functions) or `off` (no queue). */
  DEPLOY_QUEUE: z.enum(["jobs", "off"]).default("jobs"),
  SECRET_KEY: z.string().min(32, "must be at least 32 characters (e.g. openssl rand -base64 32)").optional(),
  AUTH_SECRET: z.string().optional(),
  AUTH_CACHE_TTL_SECONDS: integer(0, 86_400).default(30),
  AUTH_GITHUB_ID: z.string().optional(),
  AUTH_GITHUB_SECRET: z.string().optional(),
  AUTH_GITHUB_ENTERPRISE_URL: httpUrl().optional(),
  RATE_LIMIT_PER_MINUTE: integer(1).default(RATE_LIMIT_PER_MINUTE),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: integer(1).default(RATE_LIMIT_ANONYMOUS_PER_MINUTE),
  RATE_LIMIT_WINDOW_MS: integer(1_000).default(RATE_LIMIT_WINDOW_MS),
  /** Comma-separated browser origins (scheme://host[:port]) allowed to call the API with a bearer token. */
  CORS_ORIGINS: z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((origin) => origin.trim().replace(/\/+$/, ""))
        .filter(Boolean),
    )
    .pipe(z.array(z.url({ protocol: /^https?$/, message: "must be comma-separated http(s) origins" })))
    .default([]),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
      message: "must be fatal, error, warn, info, debug, trace or silent",
    })
    .default("info"),
  /** Shared rate limits through a Redis server (redis://, or rediss:// for TLS); wins over the Upstash REST pair. */
  REDIS_URL: redisUrl().optional(),
  UPSTASH_REDIS_REST_URL: httpUrl().optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_SIGNING_KEY: z.string().optional(),
  INNGEST_BASE_URL: httpUrl().optional(),
  LLM_API_URL: httpUrl().optional(),
  LLM_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().default("gpt-4o-mini"),
  LLM_COST_PER_MTOK_INPUT: decimal().default(0),
  LLM_COST_PER_MTOK_OUTPUT: decimal().default(0),
  LLM_TIMEOUT_MS: integer(1).default(60_000),
  SANDBOX_ENABLED: flag().default(false),
  /** Background evaluation runs (sandbox, webhook, llm) this instance runs at once (0: none); half the cores (at least 1) when unset. */
  RUNNER_CONCURRENCY: integer(0, 1024).optional(),
  /** Bound on every project's runner cache together (MB); least recently used entries go first. */
  RUNNER_CACHE_MB: integer(0).default(5120),
  /** Largest log kept per run (MB): beyond it the tail is kept and the cut said in the log. */
  RUNNER_LOG_MB: integer(1, 1024).default(16),
  WEBHOOK_RETRY_BASE_MS: integer(1).default(5_000),
  /** How long an idle merge queue waits after its first wake-up for more entries to test with it. */
  QUEUE_GATHER_MS: integer(0, 10_000).default(0),
  WEBHOOK_TIMEOUT_MS: integer(1).default(10_000),
  /** How long a background job run stays its executor's without a renewal: a crashed instance's runs resume after it. */
  JOB_LEASE_MS: integer(1_000).default(60_000),
  ALLOW_PRIVATE_TARGETS: flag().default(false),
  GITHUB_URL: httpUrl().default("https://github.com"),
  GITHUB_API_URL: httpUrl().default("https://api.github.com"),
  GITHUB_TOKEN: z.string().optional(),
  GITHUB_WEBHOOK_SECRET: z.string().optional(),
  /** A provider request (REST) or a git transfer below 1 KB/s for this long fails with TIMEOUT. */
  PROVIDER_TIMEOUT_SECONDS: integer(1, 3600).default(30),
});

type Env = z.infer<typeof schema>;
const NAMES = schema.keyof().options;

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration: ${problems.join("; ")}`);
    this.name = "ConfigError";
  }
}

const holder = globalThis as unknown as { __svcConfig?: { key: string; env: Env } };

/** The configuration one unit of work reads, taken once when it starts (`withConfigSnapshot`). */
const snapshotScope = new AsyncLocalStorage<{ env: Env; open: boolean }>();

function currentEnv(): Env {
  const scope = snapshotScope.getStore();
  if (scope?.open) return scope.env;
  // Reading process.env costs ~0.4 us a name, so the values are read once, into the cache key.
  let key = "";
  for (const name of NAMES) key += `${process.env[name] ?? ""}\u0000`;
  if (holder.__svcConfig?.key === key) return holder.__svcConfig.env;
  // An empty variable counts as unset.
  const raw = Object.fromEntries(NAMES.map((name) => [name, process.env[name] || undefined]));
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`));
  holder.__svcConfig = { key, env: parsed.data };
  return parsed.data;
}

/**
 * Runs one unit of work (a request, a turn of a project's merge queue) with the configuration read
 * once at its start: reading the environment costs ~20 us a time, a request reads it about ten
 * times and a queue's turn once or more per change it holds (0.8 s of the server's thread in a
 * 2-minute fleet before the queue took a snapshot). Work that outlives the unit (a timer or loop it
 * started) reads the live environment again, since the scope closes when `work` settles.
 */
export async function withConfigSnapshot<T>(work: () => Promise<T>): Promise<T> {
  const scope = { env: currentEnv(), open: true };
  try {
    return await snapshotScope.run(scope, work);
  } finally {
    scope.open = false;
  }
}

/** Throws a ConfigError naming every bad variable; start-up calls it before anything else. */
export function validateConfig(): void {
  currentEnv();
}

/** The environment a child process (git) starts from; callers add their own isolation flags. */
export const inheritedEnvironment = (): NodeJS.ProcessEnv => ({ ...process.env });

export const config = {
  get port(): number {
    return currentEnv().PORT;
  },
  /** How long a code search may run before it is stopped (422 SEARCH_TIMEOUT). */
  get searchTimeLimitMs(): number {
    return currentEnv().SEARCH_TIME_LIMIT_MS;
  },
  get baseUrl(): string {
    return currentEnv().BASE_URL ?? `http://localhost:${this.port}`;
  },
  get dataDir(): string {
    return path.resolve(currentEnv().DATA_DIR);
  },
  get reposDir(): string {
    return path.resolve(/*turbopackIgnore: true*/ currentEnv().REPOS_DIR ?? path.join(this.dataDir, "repos"));
  },
  /** Where backups are written and uploaded archives kept while they are restored. */
  get backupDir(): string {
    return path.resolve(/*turbopackIgnore: true*/ currentEnv().BACKUP_DIR ?? path.join(this.dataDir, "backups"));
  },
  get restoreArchiveBytesMax(): number {
    return currentEnv().RESTORE_ARCHIVE_BYTES_MAX;
  },
  get restorePushTimeoutMs(): number {
    return currentEnv().RESTORE_PUSH_TIMEOUT_MS;
  },
  /** A reverse proxy in front sets X-Forwarded-Host; without it that header is the client's word. */
  get trustProxy(): boolean {
    return currentEnv().TRUST_PROXY;
  },
  get databaseUrl(): string | undefined {
    return currentEnv().DATABASE_URL;
  },
  get databasePoolSize(): number {
    return currentEnv().DATABASE_POOL_SIZE;
  },
  /** How long start-up keeps trying to reach the database before the process exits non-zero. */
  get databaseConnectTimeoutSeconds(): number {
    return currentEnv().DATABASE_CONNECT_TIMEOUT_SECONDS;
  },
  get adminApiKey(): string | undefined {
    return currentEnv().ADMIN_API_KEY;
  },
  get devLogin(): boolean {
    return currentEnv().DEV_LOGIN;
  },
  /** The deployment secret store's key (32 bytes, base64); unset = DEPLOY_SECRET_KEY_MISSING. */
  get deploySecretKey(): string | undefined {
    return currentEnv().DEPLOY_SECRET_KEY;
  },
  get deploySecretKeyPrevious(): string | undefined {
    return currentEnv().DEPLOY_SECRET_KEY_PREVIOUS;
  },
  get deployQueueEnabled(): boolean {
    return currentEnv().DEPLOY_QUEUE === "jobs";
  },
  /** Instance key that seals stored secrets (webhook secrets); generated into DATA_DIR when unset. */
  get secretKey(): string | undefined {
    return currentEnv().SECRET_KEY;
  },
  get authSecret(): string | undefined {
    return currentEnv().AUTH_SECRET;
  },
  /** How long a resolved bearer credential is trusted without a database read (0 disables the cache). */
  get authCacheTtlSeconds(): number {
    return currentEnv().AUTH_CACHE_TTL_SECONDS;
  },
  /** GitHub OAuth sign-in (Auth.js names); unset = the provider answers 501. */
  get githubClientId(): string | undefined {
    return currentEnv().AUTH_GITHUB_ID;
  },
  get githubClientSecret(): string | undefined {
    return currentEnv().AUTH_GITHUB_SECRET;
  },
  /** A GitHub Enterprise base URL for sign-in instead of github.com. */
  get githubEnterpriseUrl(): string | undefined {
    return currentEnv().AUTH_GITHUB_ENTERPRISE_URL;
  },
  get rateLimitPerMinute(): number {
    return currentEnv().RATE_LIMIT_PER_MINUTE;
  },
  /** Requests per minute from one address without credentials. */
  get rateLimitAnonymousPerMinute(): number {
    return currentEnv().RATE_LIMIT_ANONYMOUS_PER_MINUTE;
  },
  /**
   * The rate limits' window (a minute by default). Tests stretch it: a sliding window forgets part of the
   * previous window's count at each boundary, so N requests straddling one could all pass.
   */
  get rateLimitWindowMs(): number {
    return currentEnv().RATE_LIMIT_WINDOW_MS;
  },
  /** Browser origins allowed to read API answers (bearer callers only: credentials are never allowed). */
  get corsOrigins(): string[] {
    return currentEnv().CORS_ORIGINS;
  },
  get logLevel(): string {
    return currentEnv().LOG_LEVEL;
  },
  get redisUrl(): string | undefined {
    return currentEnv().REDIS_URL;
  },
  get redisRestUrl(): string | undefined {
    return currentEnv().UPSTASH_REDIS_REST_URL;
  },
  get redisRestToken(): string | undefined {
    return currentEnv().UPSTASH_REDIS_REST_TOKEN;
  },
  get inngestEventKey(): string | undefined {
    return currentEnv().INNGEST_EVENT_KEY;
  },
  get inngestSigningKey(): string | undefined {
    return currentEnv().INNGEST_SIGNING_KEY;
  },
  get inngestBaseUrl(): string | undefined {
    return currentEnv().INNGEST_BASE_URL;
  },
  /** LLM evaluator binding: an OpenAI-compatible base URL (".../v1"); unset = binding absent. */
  get llmApiUrl(): string | undefined {
    return currentEnv().LLM_API_URL;
  },
  get llmApiKey(): string | undefined {
    return currentEnv().LLM_API_KEY;
  },
  get llmModel(): string {
    return currentEnv().LLM_MODEL;
  },
  /** USD per million input / output tokens, for the cost recorded on llm eval runs. */
  get llmCostPerMillionInput(): number {
    return currentEnv().LLM_COST_PER_MTOK_INPUT;
  },
  get llmCostPerMillionOutput(): number {
    return currentEnv().LLM_COST_PER_MTOK_OUTPUT;
  },
  get llmTimeoutMs(): number {
    return currentEnv().LLM_TIMEOUT_MS;
  },
  /** Sandbox evaluator binding: SANDBOX_ENABLED=1 lets policies run commands; unset = binding absent. */
  get sandboxEnabled(): boolean {
    return currentEnv().SANDBOX_ENABLED;
  },
  get runnerConcurrency(): number {
    return currentEnv().RUNNER_CONCURRENCY ?? Math.max(1, Math.floor(os.availableParallelism() / 2));
  },
  get runnerCacheBytes(): number {
    return currentEnv().RUNNER_CACHE_MB * 1024 * 1024;
  },
  get runnerLogBytes(): number {
    return currentEnv().RUNNER_LOG_MB * 1024 * 1024;
  },
  /** First retry delay of a webhook delivery; later ones double up to a cap (server/webhooks/policy.ts). */
  get webhookRetryBaseMs(): number {
    return currentEnv().WEBHOOK_RETRY_BASE_MS;
  },
  get queueGatherMs(): number {
    return currentEnv().QUEUE_GATHER_MS;
  },
  /** How long one webhook delivery attempt may take (connect, send, response head). */
  get webhookTimeoutMs(): number {
    return currentEnv().WEBHOOK_TIMEOUT_MS;
  },
  get jobLeaseMs(): number {
    return currentEnv().JOB_LEASE_MS;
  },
  /** Webhook and evaluator URLs may target private/loopback addresses only when this is set. */
  get allowPrivateTargets(): boolean {
    return currentEnv().ALLOW_PRIVATE_TARGETS;
  },
  /** The hosting provider (GitHub or GitHub Enterprise): web and git base; imports must come from here. */
  get githubUrl(): string {
    return currentEnv().GITHUB_URL;
  },
  get githubApiUrl(): string {
    return currentEnv().GITHUB_API_URL;
  },
  /** The instance-wide provider token (git and REST); unset = public sources only. */
  get githubToken(): string | undefined {
    return currentEnv().GITHUB_TOKEN;
  },
  /** Enables POST /api/providers/github/webhook. */
  get githubWebhookSecret(): string | undefined {
    return currentEnv().GITHUB_WEBHOOK_SECRET;
  },
  get providerTimeoutSeconds(): number {
    return currentEnv().PROVIDER_TIMEOUT_SECONDS;
  },
};
