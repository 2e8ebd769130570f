import { config } from "@/server/config";
import { database } from "@/server/db";
import { dropAllCredentials, dropUserCredentials } from "./credential-cache";

/** PostgreSQL channel on which instances announce revoked credentials (payload: the user id). */
const CHANNEL = "svc_credentials";
const RECONNECT_MS = 1000;

/**
 * Call after any write that revokes or changes a credential or the account. Revocation takes
 * effect at once in this instance and, on PostgreSQL, in every other one (they LISTEN on CHANNEL);
 * AUTH_CACHE_TTL_SECONDS only bounds what a lost notification could leave behind.
 */
export function forgetUserCredentials(userId: string): void {
  dropUserCredentials(userId);
  void announceRevocation(userId);
}

async function announceRevocation(userId: string): Promise<void> {
  try {
    const db = await database();
    if (db.kind === "postgres") await db.raw.query("SELECT pg_notify($1, $2)", [CHANNEL, userId]);
  } catch (error) {
    console.error("[auth] announcing a credential revocation failed:", (error as Error).message);
  }
}

/**
 * On PostgreSQL, keeps one connection listening for other instances' revocations. While it is
 * disconnected notifications are missed, so every cached credential is dropped when it reconnects.
 */
export async function startRevocationListener(url = config.databaseUrl): Promise<{ stop(): Promise<void> }> {
  if (!url) return { stop: async () => {} };
  const pg = (await import("pg")).default;
  let client: InstanceType<typeof pg.Client> | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on("notification", (message) => {
      if (message.channel === CHANNEL && message.payload) dropUserCredentials(message.payload);
    });
    next.on("error", (error) => {
      console.error("[auth] revocation listener lost its connection:", error.message);
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      console.error("[auth] revocation listener could not connect:", (error as Error).message);
      void next.end().catch(() => undefined);
      schedule();
      return;
    }
    if (stopped) return void (await next.end());
    client = next;
    dropAllCredentials();
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_MS);
    retry.unref();
  };

  await connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
