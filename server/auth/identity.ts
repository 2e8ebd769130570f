/** Who is calling. An agent identity is never a user identity. */
export type Identity =
  | { kind: "anonymous" }
  | UserIdentity
  | AgentIdentity
  | {
      /** A workspace key (docs/contracts.md#agents): its creator's access, narrowed to one workspace. */
      kind: "workspace-key";
      keyId: string;
      projectId: string;
      workspaceId: string;
      workspace: string;
      /** Who made the key: the key acts as them. */
      creator: UserIdentity | AgentIdentity;
    }
  | { kind: "admin-key" };

export interface UserIdentity {
  kind: "user";
  userId: string;
  username: string;
  isAdmin: boolean;
  /** session: browser cookie; legacy: the unnamed credential; token: a named API token; oauth: an MCP/CLI grant */
  via: "session" | "legacy" | "token" | "oauth";
  /** read tokens may only use read methods; everything else is read_write */
  scope: "read" | "read_write";
  tokenId?: string;
  sessionId?: string;
}
export interface AgentIdentity {
  kind: "agent";
  agentId: string;
  /** Fixed for the agent's life (there is no rename): its commits' author name. */
  agentName: string;
  ownerId: string;
  ownerUsername: string;
}
export type WorkspaceKeyIdentity = Extract<Identity, { kind: "workspace-key" }>;

/** Who acts: a workspace key acts as its creator; every other identity as itself. */
export function actingIdentity(identity: Identity): Exclude<Identity, WorkspaceKeyIdentity> {
  return identity.kind === "workspace-key" ? identity.creator : identity;
}

/** The agent acting (directly or through a key it made), if any. */
export function actingAgentId(identity: Identity): string | null {
  const acting = actingIdentity(identity);
  return acting.kind === "agent" ? acting.agentId : null;
}

export const anonymous: Identity = { kind: "anonymous" };

/** The user whose project access applies: the user, or an agent's owner. */
export function actingUserId(identity: Identity): string | undefined {
  const acting = actingIdentity(identity);
  if (acting.kind === "user") return acting.userId;
  if (acting.kind === "agent") return acting.ownerId;
  return undefined;
}

/** The actor string stored on events and audit rows. */
export function actorOf(identity: Identity): string {
  switch (identity.kind) {
    case "workspace-key":
      return actorOf(identity.creator);
    case "user":
      return `user:${identity.userId}`;
    case "agent":
      return `agent:${identity.agentId}`;
    case "admin-key":
      return "admin-key";
    default:
      return "anonymous";
  }
}

/** Rate-limit key: one bucket per identity. */
export function rateLimitKey(identity: Identity): string | undefined {
  switch (identity.kind) {
    case "user":
      return `u:${identity.userId}`;
    case "agent":
      return `a:${identity.agentId}`;
    case "workspace-key":
      return `k:${identity.keyId}`;
    case "admin-key":
      return "admin";
    default:
      return undefined;
  }
}
