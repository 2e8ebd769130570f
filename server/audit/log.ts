import type { DbOrTx } from "@/server/db";
import type { Identity } from "@/server/auth";

export type AuditAction =
  | "secret.written"
  | "secret.deleted"
  | "deployment.approved"
  | "deployment.retried"
  | "agent.revoked"
  | "org.created"
  | "org.member.added"
  | "org.member.changed"
  | "org.member.removed"
  | "org.team.created"
  | "org.team.deleted"
  | "org.team.member.added"
  | "org.team.member.removed"
  | "org.team.project.granted"
  | "org.team.project.revoked"
  | "project.collaborator.added"
  | "project.collaborator.changed"
  | "project.collaborator.removed";

/** Writes one audit row; pass the transaction of the change being audited. */
export async function writeAudit(
  client: DbOrTx,
  entry: { action: AuditAction; identity: Identity; projectId?: string; target?: string; data?: Record<string, unknown> },
): Promise<void> {
  const { identity } = entry;
  await client.auditLog.create({
    data: {
      action: entry.action,
      actorUserId: identity.kind === "user" ? identity.userId : null,
      actorAgentId: identity.kind === "agent" ? identity.agentId : null,
      projectId: entry.projectId ?? null,
      target: entry.target ?? null,
      data: (entry.data ?? {}) as object,
    },
  });
}
