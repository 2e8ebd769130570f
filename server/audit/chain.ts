import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { Tx } from "@/server/db";

/** The fields an entry's hash covers: everything an auditor reads. */
export interface ChainedEntry {
  id: string;
  seq: bigint;
  action: string;
  actor: string;
  projectId: string | null;
  target: string | null;
  data: unknown;
  ip: string | null;
  createdAt: Date;
}

/** The hash before the first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** Advisory lock class of the chain head ("audt"); one key, so appends serialize instance-wide. */
const AUDIT_LOCK_CLASS = 0x61756474;

export function entryHash(previousHash: string, entry: ChainedEntry): string {
  const canonical = canonicalize({
    id: entry.id,
    seq: entry.seq.toString(),
    action: entry.action,
    actor: entry.actor,
    projectId: entry.projectId,
    target: entry.target,
    data: entry.data,
    ip: entry.ip,
    createdAt: entry.createdAt.toISOString(),
  });
  return createHash("sha256").update(previousHash).update(canonical!).digest("hex");
}

/**
 * Takes the chain head for the rest of `tx`. Each append reads the previous hash and writes the
 * next: two transactions doing that at once (on this instance or another) would both chain onto
 * the same predecessor and fork the chain. The transaction-scoped advisory lock makes the second
 * wait until the first commits; under READ COMMITTED its next statement then sees the new head.
 */
export async function lockChainHead(tx: Tx): Promise<{ seq: bigint; hash: string }> {
  await tx.$queryRaw`SELECT 1 FROM pg_advisory_xact_lock(${AUDIT_LOCK_CLASS}::int, 0)`;
  const head = await tx.auditLog.findFirst({ orderBy: { seq: "desc" }, select: { seq: true, hash: true } });
  return head ?? { seq: 0n, hash: GENESIS_HASH };
}
