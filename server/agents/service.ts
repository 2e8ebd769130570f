import { db } from "@/server/db";
import {
  actingUserId,
  AGENT_TOKEN_PREFIX,
  forgetUserCredentials,
  type Identity,
  isUuid,
  mintToken,
  type UserIdentity,
} from "@/server/auth";
import { writeAudit } from "@/server/audit";
import { forbidden, notFound } from "@/server/errors";

type AgentRow = {
  id: string;
  name: string;
  model: string | null;
  tokenPrefix: string;
  ownerId: string;
  owner: { username: string };
  lastUsedAt: Date | null;
  createdAt: Date;
};

/** The public view of an agent: never its token. */
export function agentView(row: AgentRow) {
  return {
    id: row.id,
    name: row.name,
    model: row.model,
    owner: { id: row.ownerId, username: row.owner.username },
    tokenPrefix: row.tokenPrefix,
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
  };
}

const withOwner = { owner: { select: { username: true } } } as const;

/** Registers an agent for a user; the token is returned once. */
export async function createAgent(owner: UserIdentity, input: { name: string; model?: string }) {
  const minted = mintToken(AGENT_TOKEN_PREFIX);
  const row = await (
    await db()
  ).agent.create({
    data: {
      ownerId: owner.userId,
      name: input.name,
      model: input.model ?? null,
      tokenHash: minted.hash,
      tokenPrefix: minted.displayPrefix,
    },
    include: withOwner,
  });
  return { agent: agentView(row), token: minted.plaintext };
}

/** The live agents of the caller's user (an agent sees its owner's agents). */
export async function listAgents(identity: Identity) {
  const ownerId = actingUserId(identity);
  if (!ownerId) return [];
  const rows = await (
    await db()
  ).agent.findMany({
    where: { ownerId, revokedAt: null },
    include: withOwner,
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
  return rows.map(agentView);
}

async function liveAgent(id: string) {
  if (!isUuid(id)) return null;
  return (await db()).agent.findFirst({ where: { id, revokedAt: null }, include: withOwner });
}

/** One agent of the caller's user; others' agents are indistinguishable from missing ones. */
export async function getAgent(identity: Identity, id: string) {
  const row = await liveAgent(id);
  if (!row || row.ownerId !== actingUserId(identity)) throw notFound("Agent not found");
  return agentView(row);
}

/**
 * Deletes (revokes) an agent: its token stops working at once. The row is kept, revoked, so
 * provenance and audit entries still resolve. Owner only; audited `agent.revoked`.
 */
export async function deleteAgent(caller: UserIdentity, id: string) {
  const row = await liveAgent(id);
  if (!row) throw notFound("Agent not found");
  if (row.ownerId !== caller.userId) throw forbidden("Only the agent's owner can delete it");
  const prisma = await db();
  const revoked = await prisma.$transaction(async (tx) => {
    const { count } = await tx.agent.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (count === 0) return false;
    await writeAudit(tx, {
      action: "agent.revoked",
      identity: caller,
      target: `agent:${id}`,
      data: { agentId: id, name: row.name },
    });
    return true;
  });
  forgetUserCredentials(row.ownerId);
  if (!revoked) throw notFound("Agent not found");
  return { ...agentView(row), deleted: true as const };
}

/** The model of the agent `id` (an SQL expression), as an SQL subquery: for a read that shows it with its own rows. */
export const agentModelSql = (id: string) => `(SELECT a.model FROM "Agent" AS a WHERE a.id = ${id})`;

/** Names of agents by id, revoked ones too (their past work still names them), with their owners' usernames. */
export async function agentNames(ids: string[]): Promise<Array<{ id: string; name: string; ownerUsername: string }>> {
  const wanted = ids.filter(isUuid);
  if (wanted.length === 0) return [];
  const rows = await (
    await db()
  ).agent.findMany({
    where: { id: { in: wanted } },
    select: { id: true, name: true, owner: { select: { username: true } } },
  });
  return rows.map((row) => ({ id: row.id, name: row.name, ownerUsername: row.owner.username }));
}
