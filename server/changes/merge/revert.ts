import type { Change } from "@/server/generated/prisma/client";
import { actorOf, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import { recordEvent } from "@/server/events";
import { hasObject, readCommit } from "@/server/git";
import { invalid, conflict, forbidden } from "@/server/errors";
import { loadPolicy } from "@/server/policy";
import { assertNotDeleting, commitAuthorship } from "@/server/projects";
import { projectHead } from "../evaluation";
import { loadChange } from "../load";
import { writeRevertCommit } from "./commit";
import { hardProtectionReasons } from "./gates";
import { landOnDefaultBranch, retryWhenBranchMoves } from "./land";
import { mergeOnBase } from "./merge-tree";

/** Attempts when the default branch moves between the revert's merge and its compare-and-swap. */
const REVERT_ATTEMPTS_MAX = 5;

function assertRevertible(change: Change): asserts change is Change & { mergedSha: string } {
  if (change.status !== "merged" || !change.mergedSha)
    throw invalid(`Only a merged change can be reverted; this one is ${change.status}`);
  if (change.revertedSha) throw invalid(`The change is already reverted (${change.revertedSha})`);
}

/**
 * Reverts a merged change server-side: one commit on the default branch undoing what its merge
 * brought in (a three-way merge of the head with base = the merged commit and theirs = its first
 * parent), landed like a merge (compare-and-swap under the project lock, redone on top when the
 * branch moves). The change stays `merged` and records the revert; `change.reverted` is emitted.
 * 400 unless merged and not yet reverted; 409 TARGET_DELETING; 403 PROTECTION_BLOCKED; 409
 * MERGE_CONFLICT when later commits touch the same lines (no conflict record: nothing to resolve
 * against a change).
 */
export async function revertChange(identity: UserIdentity, id: string) {
  const { change: loaded, project } = await loadChange(identity, id, "write");
  const { author } = commitAuthorship(identity);
  return retryWhenBranchMoves(REVERT_ATTEMPTS_MAX, async (attempt) => {
    const change = attempt === 1 ? loaded : await (await db()).change.findUniqueOrThrow({ where: { id } });
    assertRevertible(change);
    assertNotDeleting(project);
    const { repo, head } = projectHead(project);
    const reasons = hardProtectionReasons(await loadPolicy(repo, head));
    if (reasons.length > 0) throw forbidden("Revert blocked by branch protection", "PROTECTION_BLOCKED", { reasons });
    const merged = change.mergedSha;
    if (!(await hasObject(repo, merged)))
      throw conflict(`The merged commit ${merged} is no longer in the project repository`, "CONFLICT");
    const before = (await readCommit(repo, merged)).parent[0];
    const outcome = await mergeOnBase(repo, merged, head, before);
    if (!outcome.clean) {
      throw conflict("Reverting the change conflicts with later commits on the default branch", "MERGE_CONFLICT", {
        conflictingFiles: outcome.conflictingFiles,
      });
    }
    const commit = await writeRevertCommit(repo, { tree: outcome.tree, head, change, merged, signature: author });
    await landOnDefaultBranch(
      project,
      repo,
      { head, commit, changeIds: [id], actor: actorOf(identity), cause: "revert" },
      async (tx) => {
        const updated = await tx.change.updateMany({
          where: { id, status: "merged", revertedSha: null },
          data: { revertedSha: commit, revertedAt: new Date(), revertedById: identity.userId },
        });
        if (updated.count !== 1) throw invalid("The change is already reverted");
        await recordEvent(tx, {
          projectId: project.id,
          kind: "change.reverted",
          actor: actorOf(identity),
          data: { changeId: id, commit, mergedSha: merged },
        });
      },
    );
    return { reverted: true as const, changeId: id, commit };
  });
}
