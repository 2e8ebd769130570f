import { config } from "@/server/config";
import { database, type Database } from "@/server/db";
import { log } from "@/server/log";

const RETRY_DELAY_MAX_MS = 5_000;

/** Where the database is, for messages: the host and database name, never credentials. */
function describeDatabase(): string {
  const url = config.databaseUrl;
  if (!url) return `the embedded database in ${config.dataDir}`;
  try {
    const parsed = new URL(url);
    return `PostgreSQL at ${parsed.host}${parsed.pathname}`;
  } catch {
    return "PostgreSQL (DATABASE_URL does not parse as a URL)";
  }
}

/**
 * Opens the database at start-up, retrying with backoff for DATABASE_CONNECT_TIMEOUT_SECONDS. An
 * instance that cannot reach its database must stop (an orchestrator restarts it or routes around
 * it) rather than stay up answering errors: this throws, with the cause, once the time is up.
 */
export async function connectAtStartup(options: { timeoutMs?: number } = {}): Promise<Database> {
  const deadline = Date.now() + (options.timeoutMs ?? config.databaseConnectTimeoutSeconds * 1000);
  for (let attempt = 1; ; attempt++) {
    try {
      return await database();
    } catch (error) {
      const reason = (error as Error).message;
      const delay = Math.min(250 * 2 ** (attempt - 1), RETRY_DELAY_MAX_MS);
      if (Date.now() + delay > deadline) {
        throw new Error(`cannot reach ${describeDatabase()} after ${attempt} attempts: ${reason}`, { cause: error });
      }
      log().error({ attempt, err: reason, retryInMs: delay }, `${describeDatabase()} is not reachable; retrying`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
