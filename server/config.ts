import path from "node:path";
import { RATE_LIMIT_PER_MINUTE } from "./limits";

// Environment is read on every access so tests and scripts can change it at run time.
const env = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
};

export const config = {
  get port(): number {
    return Number(env("PORT") ?? 3000);
  },
  get baseUrl(): string {
    return (env("BASE_URL") ?? `http://localhost:${this.port}`).replace(/\/+$/, "");
  },
  get dataDir(): string {
    return path.resolve(env("DATA_DIR") ?? "./.data");
  },
  get reposDir(): string {
    return path.resolve(env("REPOS_DIR") ?? path.join(this.dataDir, "repos"));
  },
  /** A reverse proxy in front sets X-Forwarded-Host; without it that header is the client's word. */
  get trustProxy(): boolean {
    return env("TRUST_PROXY") === "1";
  },
  get databaseUrl(): string | undefined {
    return env("DATABASE_URL");
  },
  /** How long start-up keeps trying to reach the database before the process exits non-zero. */
  get databaseConnectTimeoutSeconds(): number {
    return Number(env("DATABASE_CONNECT_TIMEOUT_SECONDS") ?? 30);
  },
  get adminApiKey(): string | undefined {
    return env("ADMIN_API_KEY");
  },
  get devLogin(): boolean {
    return env("DEV_LOGIN") === "1";
  },
  get deploySecretKey(): string | undefined {
    return env("DEPLOY_SECRET_KEY");
  },
  /** Instance key that seals stored secrets (webhook secrets); generated into DATA_DIR when unset. */
  get secretKey(): string | undefined {
    return env("SECRET_KEY");
  },
  get authSecret(): string | undefined {
    return env("AUTH_SECRET");
  },
  /** How long a resolved bearer credential is trusted without a database read (0 disables the cache). */
  get authCacheTtlSeconds(): number {
    return Number(env("AUTH_CACHE_TTL_SECONDS") ?? 30);
  },
  /** GitHub OAuth sign-in (Auth.js names); unset = the provider answers 501. */
  get githubClientId(): string | undefined {
    return env("AUTH_GITHUB_ID");
  },
  get githubClientSecret(): string | undefined {
    return env("AUTH_GITHUB_SECRET");
  },
  /** A GitHub Enterprise base URL for sign-in instead of github.com. */
  get githubEnterpriseUrl(): string | undefined {
    return env("AUTH_GITHUB_ENTERPRISE_URL");
  },
  get rateLimitPerMinute(): number {
    return Number(env("RATE_LIMIT_PER_MINUTE") ?? RATE_LIMIT_PER_MINUTE);
  },
  get redisRestUrl(): string | undefined {
    return env("UPSTASH_REDIS_REST_URL");
  },
  get redisRestToken(): string | undefined {
    return env("UPSTASH_REDIS_REST_TOKEN");
  },
  get inngestEventKey(): string | undefined {
    return env("INNGEST_EVENT_KEY");
  },
  get inngestSigningKey(): string | undefined {
    return env("INNGEST_SIGNING_KEY");
  },
  get inngestBaseUrl(): string | undefined {
    return env("INNGEST_BASE_URL");
  },
  /** LLM evaluator binding: an OpenAI-compatible base URL (".../v1"); unset = binding absent. */
  get llmApiUrl(): string | undefined {
    return env("LLM_API_URL")?.replace(/\/+$/, "");
  },
  get llmApiKey(): string | undefined {
    return env("LLM_API_KEY");
  },
  get llmModel(): string {
    return env("LLM_MODEL") ?? "gpt-4o-mini";
  },
  /** USD per million input / output tokens, for the cost recorded on llm eval runs. */
  get llmCostPerMillionInput(): number {
    return Number(env("LLM_COST_PER_MTOK_INPUT") ?? 0);
  },
  get llmCostPerMillionOutput(): number {
    return Number(env("LLM_COST_PER_MTOK_OUTPUT") ?? 0);
  },
  get llmTimeoutMs(): number {
    return Number(env("LLM_TIMEOUT_MS") ?? 60_000);
  },
  /** Sandbox evaluator binding: SANDBOX_ENABLED=1 lets policies run commands; unset = binding absent. */
  get sandboxEnabled(): boolean {
    return env("SANDBOX_ENABLED") === "1";
  },
  /** First retry delay of a webhook delivery; later ones double up to a cap (server/webhooks/policy.ts). */
  get webhookRetryBaseMs(): number {
    return Number(env("WEBHOOK_RETRY_BASE_MS") ?? 5_000);
  },
  /** How long one webhook delivery attempt may take (connect, send, response head). */
  get webhookTimeoutMs(): number {
    return Number(env("WEBHOOK_TIMEOUT_MS") ?? 10_000);
  },
  /** Webhook and evaluator URLs may target private/loopback addresses only when this is set. */
  get allowPrivateTargets(): boolean {
    return env("ALLOW_PRIVATE_TARGETS") === "1";
  },
};
