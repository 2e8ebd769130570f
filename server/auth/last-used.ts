import { registerCache } from "@/server/caches";
import { db } from "@/server/db";
import { log } from "@/server/log";

/** lastUsedAt is written at most this often per credential, so requests rarely write. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const holder = globalThis as unknown as { __svcLastUsed?: Map<string, number> };
const lastWritten = () => (holder.__svcLastUsed ??= new Map<string, number>());
const TRACKED_MAX = 100_000;
registerCache("auth.lastUsedWrites", {
  entries: () => lastWritten().size,
  limit: TRACKED_MAX,
  bound: "cleared whole past the limit (a credential's next use writes once more)",
});

/** Seeds the tracker from a freshly loaded row, so a recent write by any instance is not repeated. */
export function noteLastUsed(id: string, lastUsedAt: Date | null): void {
  if (lastUsedAt) lastWritten().set(id, Math.max(lastWritten().get(id) ?? 0, lastUsedAt.getTime()));
}

/**
 * Records a use of a token or agent. The conditional update keeps concurrent instances from
 * writing more than once per resolution window as well.
 */
export async function touchLastUsed(usage: { table: "apiToken" | "agent"; id: string }): Promise<void> {
  const now = Date.now();
  const tracker = lastWritten();
  if (now - (tracker.get(usage.id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
  tracker.set(usage.id, now);
  if (tracker.size > TRACKED_MAX) tracker.clear();
  const prisma = await db();
  const cutoff = new Date(now - LAST_USED_RESOLUTION_MS);
  const where = { id: usage.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: cutoff } }] };
  const data = { lastUsedAt: new Date(now) };
  try {
    if (usage.table === "apiToken") await prisma.apiToken.updateMany({ where, data });
    else await prisma.agent.updateMany({ where, data });
  } catch (error) {
    // Bookkeeping only: a failed write must not fail the request it describes.
    log().error({ err: error }, "auth: recording lastUsedAt failed");
  }
}
