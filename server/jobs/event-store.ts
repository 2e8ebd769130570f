import crypto from "node:crypto";
import { z } from "zod";
import { db, type DbOrTx } from "@/server/db";

const eventSchema = z.object({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  data: z.record(z.string(), z.unknown()).optional(),
  ts: z.number().optional(),
});

export type EventPayload = z.input<typeof eventSchema>;

/**
 * Stores events for the embedded executor and answers their ids. An event whose id was already
 * stored is not stored again (Inngest deduplicates by id the same way).
 */
export async function storeEvents(payloads: unknown[], client?: DbOrTx): Promise<string[]> {
  const events = payloads.map((payload) => {
    const event = eventSchema.parse(payload);
    return { id: event.id ?? crypto.randomUUID(), name: event.name, data: (event.data ?? {}) as object, ts: BigInt(event.ts ?? Date.now()) };
  });
  if (events.length) await (client ?? (await db())).jobEvent.createMany({ data: events, skipDuplicates: true });
  return events.map((event) => event.id);
}
