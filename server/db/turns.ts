import type pg from "pg";
import { log } from "@/server/log";

/**
 * Turns on PostgreSQL: work one holder at a time may do across every instance on the database, for
 * as long as it takes (a project's merge queue, batch after batch). A turn is a session-level
 * advisory lock taken on a connection of the turns' own, outside any transaction. Not a transaction
 * holding a transaction-scoped lock: under a fleet a queue's turn lasts minutes, and its open
 * transaction kept PostgreSQL's oldest snapshot (its unnamed portal's), so vacuum could remove no
 * row version made dead since, in any table: after 9 minutes of 50 agents the one-row Project table
 * had 10,637 dead versions, the queue's 31,920, every read walking them, and the soak's landings fell
 * from 25 to 14 a second until the transaction ended (the "swing" of PostgreSQL's soaks since round
 * 14; docs/soak, round 29).
 */
export interface Turns {
  /**
   * Runs `fn` if nobody has `key`'s turn (this process or another instance); answers whether it ran.
   * Who finds it taken leaves the work to its holder.
   */
  take(key: string, fn: () => Promise<void>): Promise<boolean>;
  close(): Promise<void>;
}

/** Turns on their own connection to `url`, opened on first use and again after it fails. */
export function postgresTurns(Client: typeof pg.Client, url: string, connectTimeoutMs: number): Turns {
  let connection: Promise<pg.Client> | null = null;
  // A session-level lock is re-entrant on its connection: a second taker in this process is refused here.
  const held = new Set<string>();

  function connect(): Promise<pg.Client> {
    if (connection) return connection;
    const client = new Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
    const opening = client.connect().then(() => client);
    connection = opening;
    const drop = () => {
      if (connection === opening) connection = null;
    };
    // A lost connection releases its locks on the server; the next turn connects again.
    client.on("error", (error) => {
      log().error({ err: error.message }, "db: the turns' PostgreSQL connection failed");
      drop();
      void client.end().catch(() => undefined);
    });
    client.on("end", drop);
    opening.catch(drop);
    return opening;
  }

  return {
    async take(key, fn) {
      if (held.has(key)) return false;
      held.add(key);
      try {
        const client = await connect();
        const { rows } = await client.query<{ locked: boolean }>(
          "SELECT pg_try_advisory_lock(hashtext($1)) AS locked",
          [key],
        );
        if (!rows[0].locked) return false;
        try {
          await fn();
        } finally {
          await client
            .query("SELECT pg_advisory_unlock(hashtext($1))", [key])
            .catch((error: unknown) =>
              log().warn({ err: error, key }, "db: a turn's unlock failed (its connection's end releases it)"),
            );
        }
        return true;
      } finally {
        held.delete(key);
      }
    },
    async close() {
      const opening = connection;
      connection = null;
      const client = await opening?.catch(() => null);
      await client?.end();
    },
  };
}
