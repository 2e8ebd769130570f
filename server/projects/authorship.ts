import { actingIdentity, type Identity } from "@/server/auth";
import { config } from "@/server/config";
import type { Signature } from "@/server/git";
import { unauthenticated } from "@/server/errors";

const noreplyHost = () => new URL(config.baseUrl).hostname;
export const userSignature = (username: string): Signature => ({
  name: username,
  email: `${username}@users.noreply.${noreplyHost()}`,
});

/**
 * Who a commit written for the caller records: a user is author and committer; an agent is the
 * author and its owning user the committer, so both stay visible in history.
 */
export function commitAuthorship(caller: Identity): { author: Signature; committer: Signature } {
  const identity = actingIdentity(caller);
  if (identity.kind === "user") {
    const signature = userSignature(identity.username);
    return { author: signature, committer: signature };
  }
  if (identity.kind === "agent") {
    return {
      author: {
        name: `${identity.agentName} (agent of ${identity.ownerUsername})`,
        email: `agent-${identity.agentId}@agents.noreply.${noreplyHost()}`,
      },
      committer: userSignature(identity.ownerUsername),
    };
  }
  throw unauthenticated("A user or agent identity is required");
}
