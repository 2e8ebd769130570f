import type { Prisma, Project, WorkspaceKey } from "@/server/generated/prisma/client";
import {
  WORKSPACE_KEY_PREFIX,
  actingAgentId,
  actingUserId,
  deadKeyReason,
  forgetUserCredentials,
  isUuid,
  mintToken,
  onDeadKeyPresented,
  type Identity,
  type KeyRevocationReason,
} from "@/server/auth";
import { writeAudit } from "@/server/audit";
import { announceOnCommit, db, type DbOrTx } from "@/server/db";
import { forbidden, notFound } from "@/server/errors";
import { whenRequestEnds } from "@/server/events";
import type { BranchMoveHook } from "@/server/git";
import { highest, onAccessLoss } from "@/server/access";
import { atLeast, projectGrants, requireProject } from "@/server/projects";
import { canWriteWorkspace, findWorkspace } from "./service";

type ProjectRef = { namespace: string; slug: string };

/** The credentials topic of server/auth: announcing a user drops their cached credentials, keys included. */
const CREDENTIALS_TOPIC = "credentials";

export function keyView(row: WorkspaceKey, creatorUsername: string) {
  return {
    id: row.id,
    workspace: row.workspaceName,
    projectId: row.projectId,
    name: row.name,
    prefix: row.prefix,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    createdBy: { id: row.createdById, username: creatorUsername, agentId: row.createdByAgentId },
    revokedAt: row.revokedAt?.toISOString() ?? null,
    revokedReason: (row.revokedReason as KeyRevocationReason | null) ?? null,
  };
}

/**
 * Mints a key for one workspace; the plaintext is answered once. The caller (a user or an agent)
 * needs to be able to write that workspace; the key acts as them, remembering which credential
 * they used, so revoking that credential revokes the key.
 */
export async function createWorkspaceKey(
  identity: Identity,
  ref: ProjectRef & { workspace: string },
  input: { ttlMinutes: number; keyName?: string },
) {
  const { project, role } = await requireProject(identity, ref, "write");
  const workspace = await findWorkspace(project.id, ref.workspace);
  if (!workspace || !canWriteWorkspace(identity, role, workspace)) throw notFound(`Unknown workspace ${ref.workspace}`);
  const userId = actingUserId(identity);
  if (!userId || (identity.kind !== "user" && identity.kind !== "agent"))
    throw forbidden("Workspace keys are made by users and agents");
  const minted = mintToken(WORKSPACE_KEY_PREFIX);
  const row = await (
    await db()
  ).$transaction(async (tx) => {
    const created = await tx.workspaceKey.create({
      data: {
        projectId: project.id,
        workspaceId: workspace.id,
        workspaceName: workspace.name,
        name: input.keyName ?? `${workspace.name} key`,
        tokenHash: minted.hash,
        prefix: minted.displayPrefix,
        createdById: userId,
        createdByAgentId: actingAgentId(identity),
        creatorVia: identity.kind === "agent" ? "agent" : identity.via,
        creatorTokenId: identity.kind === "user" ? (identity.tokenId ?? null) : null,
        expiresAt: new Date(Date.now() + input.ttlMinutes * 60_000),
      },
    });
    await writeAudit(tx, {
      action: "workspace_key.created",
      identity,
      projectId: project.id,
      target: `workspace_key:${created.id}`,
      data: { workspace: workspace.name, expiresAt: created.expiresAt.toISOString() },
    });
    return created;
  });
  return { key: keyView(row, creatorName(identity)), plaintext: minted.plaintext };
}

const creatorName = (identity: Identity) =>
  identity.kind === "user" ? identity.username : identity.kind === "agent" ? identity.ownerUsername : "";

/**
 * Marks keys revoked with the reason, audits each, and announces their creators on commit so every
 * instance drops them from its credential cache. Keys already revoked are left as they are.
 */
async function revokeKeys(
  tx: DbOrTx,
  keys: WorkspaceKey[],
  reason: KeyRevocationReason,
  identity?: Identity,
): Promise<WorkspaceKey[]> {
  const revoked: WorkspaceKey[] = [];
  for (const key of keys) {
    const { count } = await tx.workspaceKey.updateMany({
      where: { id: key.id, revokedAt: null },
      data: { revokedAt: new Date(), revokedReason: reason },
    });
    if (count > 0) revoked.push(key);
  }
  await settleRevoked(tx, revoked, reason, identity);
  return revoked;
}

type RevokedKey = Pick<WorkspaceKey, "id" | "projectId" | "workspaceName" | "createdById">;

/** Audits keys just revoked and announces their creators on commit (every instance drops them from its credential cache). */
async function settleRevoked(
  tx: DbOrTx,
  revoked: RevokedKey[],
  reason: KeyRevocationReason,
  identity?: Identity,
): Promise<void> {
  for (const key of revoked) {
    await writeAudit(tx, {
      action: "workspace_key.revoked",
      identity,
      projectId: key.projectId,
      target: `workspace_key:${key.id}`,
      data: { reason, workspace: key.workspaceName },
    });
  }
  for (const userId of new Set(revoked.map((key) => key.createdById))) {
    await announceOnCommit(tx, CREDENTIALS_TOPIC, userId);
    // This instance need not wait for the notification to come back (nor for a listener to run).
    whenRequestEnds(() => forgetUserCredentials(userId));
  }
}

/**
 * Records why live-looking keys stopped working (TTL, workspace or project gone, creator's credential
 * revoked, creator's write access lost): the credential resolver already refuses them; this makes
 * the list and the audit log say so.
 */
async function settleDeadKeys(project: Project, keys: WorkspaceKey[]): Promise<WorkspaceKey[]> {
  const prisma = await db();
  const full = await prisma.workspaceKey.findMany({
    where: { id: { in: keys.map((key) => key.id) } },
    include: { createdBy: true, createdByAgent: true, project: { select: { deletingAt: true } } },
  });
  const alive: WorkspaceKey[] = [];
  for (const row of full) {
    const reason = (await deadKeyReason(row)) ?? ((await creatorCanWrite(row, project)) ? null : "access_lost");
    if (!reason) alive.push(row);
    else await prisma.$transaction((tx) => revokeKeys(tx, [row], reason));
  }
  return alive;
}

const SWEEP_PAGE = 500;

/**
 * The background sweep (inngest/functions/workspace-keys-sweep.ts): records the end of keys nobody
 * lists (TTL passed, workspace or project gone, creator's credential revoked or write access lost)
 * in the key list and the audit log. Answers how many it recorded.
 */
export const sweepDeadKeys = () => settleKeysWhere({});

/** Records the end of the live-looking keys that match `where` and have died, a page at a time; answers how many. */
async function settleKeysWhere(where: Prisma.WorkspaceKeyWhereInput): Promise<number> {
  const prisma = await db();
  let recorded = 0;
  for (let after: string | undefined; ;) {
    const page = await prisma.workspaceKey.findMany({
      where: { ...where, revokedAt: null, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: "asc" },
      take: SWEEP_PAGE,
    });
    const projects = await prisma.project.findMany({
      where: { id: { in: [...new Set(page.map((key) => key.projectId))] } },
    });
    for (const project of projects) {
      const keys = page.filter((key) => key.projectId === project.id);
      recorded += keys.length - (await settleDeadKeys(project, keys)).length;
    }
    if (page.length < SWEEP_PAGE) return recorded;
    after = page.at(-1)!.id;
  }
}

// A grant change that may have taken someone's write access away records, before it answers, the
// end of the keys that lived on it (`access_lost`), rather than leaving it to the sweep.
onAccessLoss("workspace-keys", async (loss) => {
  const where: Prisma.WorkspaceKeyWhereInput[] = [];
  if (loss.userIds?.length) where.push({ createdById: { in: loss.userIds } });
  if (loss.projectIds?.length) where.push({ projectId: { in: loss.projectIds } });
  if (loss.orgIds?.length) where.push({ project: { ownerOrgId: { in: loss.orgIds } } });
  if (where.length > 0) await settleKeysWhere({ OR: where });
});

// A key presented once dead (its TTL passed, mostly) records why it ended then, rather than at the next sweep.
onDeadKeyPresented("workspace-keys", (keyId) => settleKeysWhere({ id: keyId }).then(() => undefined));

async function creatorCanWrite(row: WorkspaceKey, project: Project): Promise<boolean> {
  return atLeast(highest((await projectGrants(row.createdById, project)).map((grant) => grant.permission)), "write");
}

/** The workspace's active keys (project writers), or every key with `revoked` (each says why it ended). */
export async function listWorkspaceKeys(
  identity: Identity,
  ref: ProjectRef & { workspace: string },
  options: { revoked: boolean },
) {
  const { project } = await requireProject(identity, ref, "write");
  const workspace = await findWorkspace(project.id, ref.workspace);
  if (!workspace) throw notFound(`Unknown workspace ${ref.workspace}`);
  const prisma = await db();
  await settleDeadKeys(
    project,
    await prisma.workspaceKey.findMany({ where: { workspaceId: workspace.id, revokedAt: null } }),
  );
  const rows = await prisma.workspaceKey.findMany({
    where: { workspaceId: workspace.id, ...(options.revoked ? {} : { revokedAt: null }) },
    include: { createdBy: { select: { username: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((row) => keyView(row, row.createdBy.username));
}

/** Revokes a key: its creator (a user, or an agent of that user) or a project admin. */
export async function revokeWorkspaceKey(identity: Identity, id: string) {
  const prisma = await db();
  const key = isUuid(id) ? await prisma.workspaceKey.findUnique({ where: { id } }) : null;
  if (!key) throw notFound("Workspace key not found");
  const { role } = await requireProject(identity, { id: key.projectId }, "read");
  if (key.createdById !== actingUserId(identity) && !atLeast(role, "admin"))
    throw forbidden("Only the key's creator or a project admin revokes it");
  await prisma.$transaction((tx) => revokeKeys(tx, [key], "revoked", identity));
  forgetUserCredentials(key.createdById);
  return { revoked: true as const, id: key.id };
}

/**
 * A key dies with its work: when a change from its workspace is merged or rejected, in the
 * transaction that records it. One statement for all the changes a landing settles; a landing's
 * transaction holds the embedded database meanwhile, and nearly always no key matches.
 */
export async function revokeKeysOfChanges(
  tx: DbOrTx,
  changeIds: string[],
  reason: "merged" | "rejected",
): Promise<void> {
  const revoked = await tx.$queryRaw<RevokedKey[]>`
    UPDATE "WorkspaceKey" AS k SET "revokedAt" = now(), "revokedReason" = ${reason}
      FROM "Change" AS c
     WHERE c.id = ANY(${changeIds}::uuid[]) AND k."workspaceId" = c."workspaceId" AND k."revokedAt" IS NULL
    RETURNING k.id, k."projectId", k."workspaceName", k."createdById"`;
  await settleRevoked(tx, revoked, reason);
}

/** A move that lands changes (merge, batch, queue, resolution; a revert lands none of its own) revokes their workspaces' keys. */
export const revokeKeysOnMove: BranchMoveHook = {
  name: "workspaces.keys",
  async inTransaction(tx, move) {
    if (move.workspace !== null || move.cause === "revert" || move.changeIds.length === 0) return;
    await revokeKeysOfChanges(tx, move.changeIds, "merged");
  },
};
