/** Who is calling. An agent identity is never a user identity. */
export type Identity =
  | { kind: "anonymous" }
  | {
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
  | { kind: "agent"; agentId: string; ownerId: string; ownerUsername: string }
  | { kind: "admin-key" };

export type UserIdentity = Extract<Identity, { kind: "user" }>;
export type AgentIdentity = Extract<Identity, { kind: "agent" }>;

export const anonymous: Identity = { kind: "anonymous" };

/** The user whose project access applies: the user, or an agent's owner. */
export function actingUserId(identity: Identity): string | undefined {
  if (identity.kind === "user") return identity.userId;
  if (identity.kind === "agent") return identity.ownerId;
  return undefined;
}

/** The actor string stored on events and audit rows. */
export function actorOf(identity: Identity): string {
  switch (identity.kind) {
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
    case "admin-key":
      return "admin";
    default:
      return undefined;
  }
}
