import { actorOf, type Identity } from "@/server/auth/identity";
import { db } from "@/server/db/client";
import { recordEvent } from "@/server/events/record";
import { publishAfterCommit } from "@/server/events/publish";
import { RefConflictError, deleteRef, updateRef } from "@/server/git";
import { AppError } from "@/server/http/errors";
import type { RefCommand, RefResult } from "./proc-receive";
import { gatingReason, refusal, type PushScope } from "./rules";

const STALE = "stale info: the ref moved since you fetched; fetch and try again";

/** Moves one ref by compare-and-swap (the git layer takes the project lock); a failure is its reason. */
async function swap(scope: PushScope, command: RefCommand): Promise<string | null> {
  try {
    if (command.newOid === null) {
      if (command.oldOid === null) return "nothing to delete";
      await deleteRef(scope.repo, command.ref, command.oldOid);
    } else {
      await updateRef(scope.repo, command.ref, command.newOid, command.oldOid);
    }
    return null;
  } catch (error) {
    if (error instanceof RefConflictError) return STALE;
    if (error instanceof AppError && error.status < 500) return error.message;
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
  const accepted: RefCommand[] = [];
  for (const command of commands) {
    const reason = (await refusal(scope, command, gateOnce)) ?? (await swap(scope, command));
    if (reason) {
      results.push({ ref: command.ref, ok: false, reason });
      continue;
    }
    results.push({ ref: command.ref, ok: true });
    accepted.push(command);
  }
  if (accepted.length > 0) {
    const actor = actorOf(identity);
    await (await db()).$transaction(async (tx) => {
      for (const command of accepted) {
        await recordEvent(tx, {
          projectId: scope.project.id,
          kind: "push",
          actor,
          data: { ref: command.ref, before: command.oldOid, after: command.newOid, ...(scope.workspace ? { workspace: scope.workspace } : {}) },
        });
      }
    });
    await publishAfterCommit();
  }
  return results;
}
