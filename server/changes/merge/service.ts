import type { Change, Project } from "@/server/generated/prisma/client";
import { actorOf, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import { withProcessLock, type Repo } from "@/server/git";
import { conflict } from "@/server/errors";
import { loadPolicy } from "@/server/policy";
import { commitAuthorship } from "@/server/projects";
import { reviewState } from "@/server/changes/reviews/rules";
import { projectHead } from "../evaluation";
import { loadChange, workspaceName } from "../load";
import { recordConflicts } from "../conflicts/record";
import { writeLandingCommit, type MergeStrategy } from "./commit";
import { firstGateFailure, type GateInput } from "./gates";
import { agentModels, landOnDefaultBranch, postMergeCheck, recordMerged, retryWhenBranchMoves } from "./land";
import { mergeCommits } from "./merge-tree";

type Signature = Awaited<ReturnType<typeof commitAuthorship>>["author"];

/** Attempts when the branch moves under a merge that does not require a fresh base. */
const MERGE_ATTEMPTS_MAX = 5;

async function gateInput(project: Project, change: Change, force: boolean): Promise<GateInput & { repo: Repo }> {
  const prisma = await db();
  const { repo, head } = projectHead(project);
  const [policy, reviews, evaluation, workspace] = await Promise.all([
    loadPolicy(repo, head),
    reviewState(prisma, change),
    prisma.evaluation.findUnique({ where: { changeId: change.id }, select: { verdict: true } }),
    workspaceName(prisma, change.workspaceId),
  ]);
  return { project, change, workspace, repo, head, policy, reviews, evaluationPassed: evaluation?.verdict === "passed", force };
}

/**
 * Merges a change server-side: gates (protection and approvals, STALE_BASE, STALE_WORKSPACE,
 * WORKSPACE_UNVERIFIABLE), a worktree-less merge (merge-tree), then the commit and a
 * compare-and-swap of the default branch in the transaction that records the merge. A branch that
 * moves meanwhile is STALE_BASE under requireFreshBase, otherwise the merge is redone on top.
 */
export async function mergeChange(identity: UserIdentity, id: string, options: { force: boolean; strategy: MergeStrategy }) {
  const { project } = await loadChange(identity, id, "write");
  const { author } = await commitAuthorship(identity);
  // Merges of one project queue in this process: racing each other they would mostly recompute
  // onto a head that moves again (24 racing merges lost two thirds of their races, bench/scale).
  // Instances still race each other, which the optimistic retries absorb.
  return withProcessLock(`merge:${project.id}`, () => mergeWithRetries({ identity, id, project, author, ...options }));
}

async function mergeWithRetries(input: { identity: UserIdentity; id: string; project: Project; author: Signature; force: boolean; strategy: MergeStrategy }) {
  const { identity, id, project, author, ...options } = input;
  return retryWhenBranchMoves(MERGE_ATTEMPTS_MAX, async () => {
    const prisma = await db();
    // Read after the queue: the change may have moved on (merged, rejected) while this one waited.
    const change = await prisma.change.findUniqueOrThrow({ where: { id } });
    const input = await gateInput(project, change, options.force);
    const failure = await firstGateFailure(input);
    if (failure) throw failure;
    const { repo, head } = input;
    const outcome = await mergeCommits(repo, head, change.tipSha);
    if (!outcome.clean) {
      const [conflictId] = await recordConflicts(prisma, project.id, [{ change, head, files: outcome.conflictingFiles }]);
      throw conflict("The change conflicts with the default branch", "MERGE_CONFLICT", { conflictId, conflictingFiles: outcome.conflictingFiles });
    }
    const commit = await writeLandingCommit(repo, { tree: outcome.tree, head, change, workspace: input.workspace, strategy: options.strategy, signature: author });
    const models = await agentModels(prisma, [change]);
    await landOnDefaultBranch(project, repo, { head, commit, changeIds: [change.id], actor: actorOf(identity), cause: "merge" }, (tx) =>
      recordMerged(tx, { project, merged: [{ change, commit }], mergedById: identity.userId, strategy: options.strategy, actor: actorOf(identity), agentModels: models }),
    );
    return {
      merged: true,
      changeId: change.id,
      project: `@${project.namespace}/${project.slug}`,
      workspace: input.workspace,
      commit,
      strategy: options.strategy,
      postMerge: await postMergeCheck(repo, commit),
    };
  });
}
