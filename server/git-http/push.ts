import { actorOf, type Identity } from "@/server/auth";
import { db } from "@/server/db";
import { enqueueDeployments, requestDeployments } from "@/server/deployments";
import { publishAfterCommit, recordEvent } from "@/server/events";
import { RefConflictError, deleteRef, updateRef } from "@/server/git";
import { isRefusal } from "@/server/errors";
import type { RefCommand, RefResult } from "./proc-receive";
import { gatingReason, refusal, type PushScope } from "./rules";

const BRANCH_PREFIX = "refs/heads/";
const STALE = "stale info: the ref moved since you fetched; fetch and try again";

/**
 * Moves one ref by compare-and-swap (the git layer takes the project lock) inside the transaction
 * that records its `push` event, as merges do: the event commits exactly when the ref moved. A
 * branch of the project moved this way requests its deployments in that transaction too. A
 * failure is its reason.
 */
async function swap(identity: Identity, scope: PushScope, command: RefCommand): Promise<string | null> {
  const { ref, oldOid, newOid } = command;
  if (newOid === null && oldOid === null) return "nothing to delete";
  try {
    await (await db()).$transaction(async (tx) => {
      await recordEvent(tx, {
        projectId: scope.project.id,
        kind: "push",
        actor: actorOf(identity),
        data: { ref, before: oldOid, after: newOid, ...(scope.workspace ? { workspace: scope.workspace } : {}) },
      });
      if (newOid !== null) {
        await updateRef(scope.repo, ref, newOid, oldOid, { tx });
        if (!scope.workspace && ref.startsWith(BRANCH_PREFIX)) {
          await requestDeployments(tx, { project: scope.project, branch: ref.slice(BRANCH_PREFIX.length), commit: newOid, actor: actorOf(identity) });
        }
      } else if (oldOid !== null) await deleteRef(scope.repo, ref, oldOid, { tx });
    });
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
  if (results.some((result) => result.ok)) {
    await publishAfterCommit();
    if (!scope.workspace) await enqueueDeployments({ projectId: scope.project.id });
  }
  return results;
}
