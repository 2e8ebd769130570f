import type { Change, Project } from "@/server/generated/prisma/client";
import { actorOf, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import { withProcessLock, type Repo } from "@/server/git";
import { conflict } from "@/server/errors";
import { loadPolicy } from "@/server/policy";
import { commitAuthorship } from "@/server/projects";
import { reviewStateOf, type LiveVerdict } from "@/server/changes/reviews/rules";
import { projectHead } from "../evaluation";
import { loadChange } from "../load";
import { recordConflicts } from "../conflicts/record";
import { writeLandingCommit, type MergeStrategy } from "./commit";
import { firstGateFailure, type GateInput } from "./gates";
import { agentModels, landOnDefaultBranch, postMergeCheck, recordMerged, retryWhenBranchMoves } from "./land";
import { mergeCommits } from "./merge-tree";

type Signature = Awaited<ReturnType<typeof commitAuthorship>>["author"];

/** Attempts when the branch moves under a merge that does not require a fresh base. */
const MERGE_ATTEMPTS_MAX = 5;

/** What the gates read besides the change: its evaluation's verdict, its workspace's name, its live verdicts. One query. */
async function changeFacts(change: Change): Promise<{ evaluationPassed: boolean; workspace: string | null; live: LiveVerdict[] }> {
  const [row] = await (await db()).$queryRaw<Array<{ verdict: string | null; workspace: string | null; live: LiveVerdict[] }>>`
    SELECT (SELECT e.verdict::text FROM "Evaluation" e WHERE e."changeId" = c.id) AS verdict,
           (SELECT w.name FROM "Workspace" w WHERE w.id = c."workspaceId") AS workspace,
           COALESCE((SELECT json_agg(json_build_object('changeId', r."changeId", 'reviewerId', r."reviewerId", 'verdict', r.verdict::text))
                       FROM "Review" r
                      WHERE r."changeId" = c.id AND r."dismissedAt" IS NULL AND r.verdict::text IN ('approve', 'request_changes')), '[]'::json) AS live
      FROM "Change" c WHERE c.id = ${change.id}::uuid`;
  return { evaluationPassed: row?.verdict === "passed", workspace: row?.workspace ?? null, live: row?.live ?? [] };
}

async function gateInput(project: Project, change: Change, force: boolean): Promise<GateInput & { repo: Repo }> {
  const { repo, head } = projectHead(project);
  const [policy, facts] = await Promise.all([loadPolicy(repo, head), changeFacts(change)]);
  return { project, change, workspace: facts.workspace, repo, head, policy, reviews: reviewStateOf(change, facts.live), evaluationPassed: facts.evaluationPassed, force };
}

/**
 * Merges a change server-side: gates (protection and approvals, STALE_BASE, STALE_WORKSPACE,
 * WORKSPACE_UNVERIFIABLE), a worktree-less merge (merge-tree), then the commit and a
 * compare-and-swap of the default branch in the transaction that records the merge. A branch that
 * moves meanwhile is STALE_BASE under requireFreshBase, otherwise the merge is redone on top.
 */
export async function mergeChange(identity: UserIdentity, id: string, options: { force: boolean; strategy: MergeStrategy }) {
  const { project } = await loadChange(identity, id, "write");
  const { author } = commitAuthorship(identity);
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
