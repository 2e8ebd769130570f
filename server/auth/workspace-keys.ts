import { db } from "@/server/db";
import { log } from "@/server/log";
import type { AgentIdentity, UserIdentity } from "./identity";
import type { CachedCredential } from "./credential-cache";
import { sameHash } from "./tokens";

/** Workspace keys (docs/contracts.md#agents): one workspace's credential, acting as its creator. */
export const WORKSPACE_KEY_PREFIX = "svc_ws_";

/** Why a key stopped working; the same words as the key list and the audit log. */
export type KeyRevocationReason = "merged" | "rejected" | "expired" | "deleted" | "access_lost" | "revoked";

const include = {
  createdBy: true,
  createdByAgent: true,
  project: { select: { deletingAt: true } },
} as const;

type KeyRow = NonNullable<Awaited<ReturnType<Awaited<ReturnType<typeof db>>["workspaceKey"]["findUnique"]>>> & {
  createdBy: {
    id: string;
    username: string;
    isAdmin: boolean;
    deletingAt: Date | null;
    legacyTokenDisabledAt: Date | null;
  };
  createdByAgent: { id: string; name: string; ownerId: string; revokedAt: Date | null } | null;
  project: { deletingAt: Date | null };
};

/**
 * Why a key that is not marked revoked no longer works, or null while it does: its TTL, its
 * workspace or project going, or its creator's own credential being revoked. (Losing write access
 * is decided by the access resolver, server/projects, on every request.)
 */
export async function deadKeyReason(row: KeyRow, now = new Date()): Promise<KeyRevocationReason | null> {
  if (row.expiresAt <= now) return "expired";
  if (!row.workspaceId || row.project.deletingAt) return "deleted";
  if (row.createdBy.deletingAt) return "revoked";
  if (row.createdByAgentId) return !row.createdByAgent || row.createdByAgent.revokedAt ? "revoked" : null;
  if (row.creatorVia === "legacy") return row.createdBy.legacyTokenDisabledAt ? "revoked" : null;
  if (!row.creatorTokenId) return null;
  const token = await (
    await db()
  ).apiToken.findUnique({ where: { id: row.creatorTokenId }, select: { revokedAt: true, expiresAt: true } });
  return !token || token.revokedAt || (token.expiresAt && token.expiresAt <= now) ? "revoked" : null;
}

function creatorOf(row: KeyRow): UserIdentity | AgentIdentity {
  const user = row.createdBy;
  if (row.createdByAgentId)
    return {
      kind: "agent",
      agentId: row.createdByAgentId,
      agentName: row.createdByAgent?.name ?? "agent",
      ownerId: user.id,
      ownerUsername: user.username,
    };
  const via = row.creatorVia as UserIdentity["via"];
  return {
    kind: "user",
    userId: user.id,
    username: user.username,
    isAdmin: user.isAdmin,
    via,
    scope: "read_write",
    ...(row.creatorTokenId ? { tokenId: row.creatorTokenId } : {}),
  };
}

type DeadKeyListener = (keyId: string) => Promise<void>;

// On globalThis: a listener registered by one module copy must hear the keys another copy refuses.
const deadKeyListeners = ((
  globalThis as unknown as { __svcDeadKeyListeners?: Map<string, DeadKeyListener> }
).__svcDeadKeyListeners ??= new Map<string, DeadKeyListener>());

/** Lets workspaces record why a key ended (the key list, the audit log) when one is presented dead; `name` makes registration idempotent. */
export function onDeadKeyPresented(name: string, listener: DeadKeyListener): void {
  deadKeyListeners.set(name, listener);
}

/** A key not yet marked revoked was refused (its TTL passed, mostly): its end is recorded before the 401. */
export async function deadKeyPresented(keyId: string): Promise<void> {
  for (const [name, listener] of deadKeyListeners) {
    // The refusal stands either way: the sweep records what a failure here left unrecorded.
    await listener(keyId).catch((error: unknown) =>
      log().error({ err: error, listener: name }, "recording a dead workspace key failed"),
    );
  }
}

/**
 * Loads a live workspace key by its hash, for the credential resolver. It is cached under its
 * creator, so everything that revokes the creator's credentials (or the key: workspaces/keys.ts
 * announces its creator on commit) drops it on every instance.
 */
export async function loadWorkspaceKey(hash: string): Promise<CachedCredential | undefined> {
  const row = (await (await db()).workspaceKey.findUnique({ where: { tokenHash: hash }, include })) as KeyRow | null;
  if (!row || row.revokedAt || !sameHash(row.tokenHash, hash)) return undefined;
  if (await deadKeyReason(row)) {
    await deadKeyPresented(row.id);
    return undefined;
  }
  return {
    identity: {
      kind: "workspace-key",
      keyId: row.id,
      projectId: row.projectId,
      workspaceId: row.workspaceId!,
      workspace: row.workspaceName,
      creator: creatorOf(row),
    },
    userId: row.createdById,
    expiresAt: row.expiresAt,
  };
}
