import crypto from "node:crypto";
import { z } from "zod";
import { db, insertRowsSql, type DbOrTx } from "@/server/db";
import { inngestConfigured } from "./mode";

const eventSchema = z.object({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  data: z.record(z.string(), z.unknown()).optional(),
  ts: z.number().optional(),
});

export type EventPayload = z.input<typeof eventSchema>;

// Rows take their sequence numbers in the order listed; an id already stored is skipped.
const INSERT_EVENTS = insertRowsSql(
  "JobEvent",
  { id: "text", name: "text", data: "jsonb", ts: "bigint", receivedAt: "timestamp(3)" },
  "ON CONFLICT DO NOTHING",
);

/**
 * Stores events for the embedded executor and answers their ids. An event whose id was already
 * stored is not stored again (Inngest deduplicates by id the same way).
 */
export async function storeEvents(payloads: unknown[], client?: DbOrTx): Promise<string[]> {
  const receivedAt = new Date();
  const events = payloads.map((payload) => {
    const event = eventSchema.parse(payload);
    return {
      id: event.id ?? crypto.randomUUID(),
      name: event.name,
      data: event.data ?? {},
      ts: event.ts ?? Date.now(),
      receivedAt,
    };
  });
  if (events.length) await (client ?? (await db())).$executeRawUnsafe(INSERT_EVENTS, JSON.stringify(events));
  return events.map((event) => event.id);
}

/**
 * SQL that stores job events as part of a larger statement (one that records what they describe,
 * so they exist exactly when it does: nothing to publish after the commit, nothing lost to a crash
 * in between); wake the executors once it commits (`wakeExecutors`). `rows` is a query yielding
 * (id, name, data, position); they take sequence numbers in `position` order, and an id already
 * stored is skipped. Null when Inngest is configured: the events are then sent after the commit.
 */
export function storedEventsSql(rows: string): string | null {
  if (inngestConfigured()) return null;
  return `INSERT INTO "JobEvent" ("id", "name", "data", "ts", "receivedAt")
SELECT e.id, e.name, e.data, (extract(epoch FROM statement_timestamp()) * 1000)::bigint, statement_timestamp() AT TIME ZONE 'UTC'
  FROM (${rows}) AS e(id, name, data, position)
 ORDER BY e.position
ON CONFLICT DO NOTHING`;
}
