import { actorOf, type Identity } from "@/server/auth";
import { publishAfterCommit, recordEvent } from "@/server/events";
import { moveBranch, RefConflictError, type BranchMove } from "@/server/git";
import { isRefusal } from "@/server/errors";
import type { RefCommand, RefResult } from "./proc-receive";
import { gatingReason, refusal, type PushScope } from "./rules";

const STALE = "stale info: the ref moved since you fetched; fetch and try again";

/**
 * Moves one ref through the one door (`moveBranch`: compare-and-swap under the repository's lock, the
 * subscribers' hooks such as deployments) in the transaction that records its `push` event, as
 * merges do: the event commits exactly when the ref moved. A failure is its reason.
 */
async function swap(identity: Identity, scope: PushScope, command: RefCommand): Promise<string | null> {
  const { ref, oldOid, newOid } = command;
  if (newOid === null && oldOid === null) return "nothing to delete";
  const actor = actorOf(identity);
  const move: BranchMove = {
    project: scope.project,
    workspace: scope.workspace ?? null,
    ref,
    from: oldOid,
    to: newOid,
    actor,
    cause: "push",
    changeIds: [],
  };
  try {
    await moveBranch(scope.repo, move, (tx) =>
      recordEvent(tx, {
        projectId: scope.project.id,
        kind: "push",
        actor,
        data: { ref, before: oldOid, after: newOid, ...(scope.workspace ? { workspace: scope.workspace } : {}) },
      }),
    );
    return null;
  } catch (error) {
    if (error instanceof RefConflictError) return STALE;
    if (isRefusal(error)) return error.message;
    throw error;
  }
}

/**
 * Decides and applies the ref commands of one push, one by one: the rules of rules.ts, then a
 * compare-and-swap against the old value the client saw, so a push that raced another write is
 * refused (and the other write kept). Each accepted update records a `push` event.
 */
export async function applyPush(identity: Identity, scope: PushScope, commands: RefCommand[]): Promise<RefResult[]> {
  let gate: Promise<string | null> | undefined;
  const gateOnce = () => (gate ??= gatingReason(scope));
  const results: RefResult[] = [];
  for (const command of commands) {
    const reason = (await refusal(scope, command, gateOnce)) ?? (await swap(identity, scope, command));
    results.push(reason ? { ref: command.ref, ok: false, reason } : { ref: command.ref, ok: true });
  }
  if (results.some((result) => result.ok)) await publishAfterCommit();
  return results;
}
