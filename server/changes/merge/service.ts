import { actorOf, type Identity, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import { withProcessLock, type Repo } from "@/server/git";
import { conflict, notFound } from "@/server/errors";
import { loadPolicy } from "@/server/policy";
import { commitAuthorship, requireProject } from "@/server/projects";
import { projectHead } from "../evaluation";
import { changeProjectId } from "../load";
import { recordConflicts } from "../conflicts/record";
import { writeLandingCommit, type MergeStrategy } from "./commit";
import { changeFactsAlongside } from "./facts";
import { firstGateFailure, gateBlockers, type GateInput } from "./gates";
import { landOnDefaultBranch, postMergeCheck, recordMerged, retryWhenBranchMoves } from "./land";
import { mergeCommits } from "./merge-tree";

/** Attempts when the branch moves under a merge that does not require a fresh base. */
const MERGE_ATTEMPTS_MAX = 5;

/**
 * Merges a change server-side: gates (protection and approvals, STALE_BASE, STALE_WORKSPACE,
 * WORKSPACE_UNVERIFIABLE), a worktree-less merge (merge-tree), then the commit and a
 * compare-and-swap of the default branch in the transaction that records the merge. A branch that
 * moves meanwhile is STALE_BASE under requireFreshBase, otherwise the merge is redone on top.
 */
export async function mergeChange(
  identity: UserIdentity,
  id: string,
  options: { force: boolean; strategy: MergeStrategy },
) {
  const projectId = await changeProjectId(id);
  // Merges of one project queue in this process: racing each other they would mostly recompute
  // onto a head that moves again (24 racing merges lost two thirds of their races, bench/scale).
  // Instances still race each other, which the optimistic retries absorb.
  return withProcessLock(`merge:${projectId}`, () => mergeWithRetries({ identity, id, projectId, ...options }));
}

/**
 * What a merge without force would be refused for now, every gate's reason in order (the change
 * page's merge box: the same gates as the merge, read with the same facts). Conflicts show only
 * when the merge is tried. Anyone who can read the change may ask.
 */
export async function mergeBlockers(identity: Identity, id: string): Promise<{ blockers: string[] }> {
  const projectId = await changeProjectId(id);
  const { project, alongside: facts } = await requireProject(identity, { id: projectId }, "read", {
    alongside: changeFactsAlongside(id),
  });
  if (!facts) throw notFound();
  const { repo, head } = projectHead(project);
  return {
    blockers: await gateBlockers({ ...facts, project, repo, head, policy: await loadPolicy(repo, head), force: false }),
  };
}

async function mergeWithRetries(input: {
  identity: UserIdentity;
  id: string;
  projectId: string;
  force: boolean;
  strategy: MergeStrategy;
}) {
  const { identity, id, projectId, ...options } = input;
  const { author } = commitAuthorship(identity);
  return retryWhenBranchMoves(MERGE_ATTEMPTS_MAX, async () => {
    // Read after the queue, the project and the change in one statement: the change may have moved
    // on (merged, rejected) while this one waited.
    const { project, alongside: facts } = await requireProject(identity, { id: projectId }, "write", {
      alongside: changeFactsAlongside(id),
    });
    if (!facts) throw notFound();
    const { change } = facts;
    const { repo, head } = projectHead(project);
    const input: GateInput & { repo: Repo } = {
      ...facts,
      project,
      repo,
      head,
      policy: await loadPolicy(repo, head),
      force: options.force,
    };
    const failure = await firstGateFailure(input);
    if (failure) throw failure;
    const outcome = await mergeCommits(repo, head, change.tipSha);
    if (!outcome.clean) {
      const [conflictId] = await recordConflicts(await db(), project.id, [
        { change, head, files: outcome.conflictingFiles },
      ]);
      throw conflict("The change conflicts with the default branch", "MERGE_CONFLICT", {
        conflictId,
        conflictingFiles: outcome.conflictingFiles,
      });
    }
    const commit = await writeLandingCommit(repo, {
      tree: outcome.tree,
      head,
      change,
      workspace: input.workspace,
      strategy: options.strategy,
      signature: author,
    });
    const models = new Map(change.agentId ? [[change.agentId, facts.agentModel]] : []);
    await landOnDefaultBranch(
      project,
      repo,
      { head, commit, changeIds: [change.id], actor: actorOf(identity), cause: "merge" },
      (tx) =>
        recordMerged(tx, {
          project,
          merged: [{ change, commit }],
          mergedById: identity.userId,
          strategy: options.strategy,
          actor: actorOf(identity),
          agentModels: models,
        }),
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
