import crypto from "node:crypto";
import { z } from "zod";
import { db, insertRowsSql, type DbOrTx, type Tx } from "@/server/db";
import { inngestConfigured } from "./mode";

const eventSchema = z.object({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  data: z.record(z.string(), z.unknown()).optional(),
  ts: z.number().optional(),
});

export type EventPayload = z.input<typeof eventSchema>;

// Rows take their sequence numbers in the order listed; an id already stored is skipped.
const INSERT_EVENTS = insertRowsSql("JobEvent", { id: "text", name: "text", data: "jsonb", ts: "bigint", receivedAt: "timestamp(3)" }, "ON CONFLICT DO NOTHING");

/**
 * Stores events for the embedded executor and answers their ids. An event whose id was already
 * stored is not stored again (Inngest deduplicates by id the same way).
 */
export async function storeEvents(payloads: unknown[], client?: DbOrTx): Promise<string[]> {
  const receivedAt = new Date();
  const events = payloads.map((payload) => {
    const event = eventSchema.parse(payload);
    return { id: event.id ?? crypto.randomUUID(), name: event.name, data: event.data ?? {}, ts: event.ts ?? Date.now(), receivedAt };
  });
  if (events.length) await (client ?? (await db())).$executeRawUnsafe(INSERT_EVENTS, JSON.stringify(events));
  return events.map((event) => event.id);
}

/**
 * Sends events as part of `tx`: embedded, they are stored with it, so they exist exactly when what
 * they describe does (nothing to publish after the commit, nothing lost to a crash in between);
 * wake the executors once it commits (`wakeExecutors`). Answers false, storing nothing and not
 * calling `build`, when Inngest is configured: then they are sent after the commit.
 */
export async function sendInTransaction(tx: Tx, build: () => Promise<EventPayload[]>): Promise<boolean> {
  if (inngestConfigured()) return false;
  await storeEvents(await build(), tx);
  return true;
}
