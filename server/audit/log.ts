import { randomUUID } from "node:crypto";
import type { DbOrTx, Tx } from "@/server/db";
import { actingIdentity, actorOf, type Identity } from "@/server/auth";
import { entryHash, lockChainHead } from "./chain";
import { currentCallerAddress } from "./caller";

/** Every action the audit log knows; each must have an operation writing it (tests/admin/audit-completeness.test.ts). */
export const AUDIT_ACTIONS = [
  "secret.written",
  "secret.deleted",
  "deployment.approved",
  "deployment.retried",
  "agent.revoked",
  "token.created",
  "token.revoked",
  "org.created",
  "org.member.added",
  "org.member.changed",
  "org.member.removed",
  "org.team.created",
  "org.team.deleted",
  "org.team.member.added",
  "org.team.member.removed",
  "org.team.project.granted",
  "org.team.project.revoked",
  "project.collaborator.added",
  "project.collaborator.changed",
  "project.collaborator.removed",
  "project.updated",
  "project.deleted",
  "backup.created",
  "restore.completed",
  "admin.user.created",
  "workspace_key.created",
  "workspace_key.revoked",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The actor string of the API (`user:<id>`, `agent:<id>`, `admin-key`); no identity is the service itself. */
export function auditActor(identity: Identity | undefined): string {
  return identity ? actorOf(identity) : "system";
}

export interface AuditEntry {
  action: AuditAction;
  /** Who acted; leave out for the service's own actions ("system"). */
  identity?: Identity;
  /** The actor string, for work done later on someone's behalf (a job) when no identity is at hand. */
  actor?: string;
  projectId?: string;
  target?: string;
  data?: Record<string, unknown>;
  /** The caller's address; by default the one of the request being handled. */
  ip?: string | null;
}

async function append(tx: Tx, entry: AuditEntry): Promise<void> {
  const head = await lockChainHead(tx);
  const { identity } = entry;
  const row = {
    id: randomUUID(),
    seq: head.seq + 1n,
    action: entry.action,
    actor: entry.actor ?? auditActor(identity),
    projectId: entry.projectId ?? null,
    target: entry.target ?? null,
    // Stored as jsonb, so the hash covers what a read gives back (JSON values only).
    data: JSON.parse(JSON.stringify(entry.data ?? {})) as Record<string, unknown>,
    ip: entry.ip === undefined ? currentCallerAddress() : entry.ip,
    createdAt: new Date(),
  };
  const acting = identity && actingIdentity(identity);
  await tx.auditLog.create({
    data: {
      ...row,
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- Prisma's JSON input refuses Record<string, unknown>; the linter's view of the type differs from tsc's
      data: row.data as object,
      actorUserId: acting?.kind === "user" ? acting.userId : null,
      actorAgentId: acting?.kind === "agent" ? acting.agentId : null,
      hash: entryHash(head.hash, row),
    },
  });
}

/** Writes one audit row, chained to the previous one; pass the transaction of the change being audited. */
export async function writeAudit(client: DbOrTx, entry: AuditEntry): Promise<void> {
  // A transaction client has no $disconnect; the full client gets a transaction of its own, so the
  // chain lock is held until the row commits.
  if ("$disconnect" in client) await client.$transaction((tx) => append(tx, entry));
  else await append(client, entry);
}
