import { db } from "@/server/db";
import { notFound } from "@/server/errors";
import { AUDIT_VERIFY_BATCH } from "@/server/limits";
import { entryHash, GENESIS_HASH } from "./chain";

export interface AuditFilter {
  action?: string;
  actor?: string;
  projectId?: string;
  /** An entry id: only entries older than it (the previous page's last id). */
  before?: string;
  limit: number;
}

/** Audit entries, newest first. */
export async function listAudit(filter: AuditFilter) {
  const prisma = await db();
  let beforeSeq: bigint | undefined;
  if (filter.before) {
    const cursor = /^[0-9a-f-]{36}$/i.test(filter.before)
      ? await prisma.auditLog.findUnique({ where: { id: filter.before }, select: { seq: true } })
      : null;
    if (!cursor) throw notFound("No audit entry has that id");
    beforeSeq = cursor.seq;
  }
  const rows = await prisma.auditLog.findMany({
    where: {
      action: filter.action,
      actor: filter.actor,
      projectId: filter.projectId,
      seq: beforeSeq === undefined ? undefined : { lt: beforeSeq },
    },
    orderBy: { seq: "desc" },
    take: filter.limit,
  });
  return rows.map((row) => ({
    id: row.id,
    action: row.action,
    actor: row.actor,
    projectId: row.projectId,
    target: row.target,
    data: row.data as Record<string, unknown>,
    ip: row.ip,
    createdAt: row.createdAt.toISOString(),
    hash: row.hash,
  }));
}

/**
 * Recomputes the chain from the first entry. Each hash is recomputed from the previous entry's
 * recomputed hash, not its stored one, so an edited entry breaks its own hash and a deleted one
 * breaks its successor's. The first entry that does not match is reported.
 */
export async function verifyAudit(): Promise<{ ok: boolean; entries: number; firstBrokenId: string | null }> {
  const prisma = await db();
  let previous = GENESIS_HASH;
  let entries = 0;
  let afterSeq = -1n;
  for (;;) {
    const batch = await prisma.auditLog.findMany({
      where: { seq: { gt: afterSeq } },
      orderBy: { seq: "asc" },
      take: AUDIT_VERIFY_BATCH,
    });
    for (const row of batch) {
      entries++;
      const expected = entryHash(previous, row);
      if (expected !== row.hash) return { ok: false, entries, firstBrokenId: row.id };
      previous = expected;
    }
    if (batch.length < AUDIT_VERIFY_BATCH) return { ok: true, entries, firstBrokenId: null };
    afterSeq = batch[batch.length - 1].seq;
  }
}
