import type { Change, Project } from "@/server/generated/prisma/client";
import type { DbOrTx, Tx } from "@/server/db/client";
import { recordEvent } from "@/server/events/record";
import { badRequest } from "@/server/http/errors";
import { closeIssuesLinkedToChange } from "@/server/issues/service";
import { loadPolicy } from "@/server/policy/load";
import type { Repo } from "@/server/git";

/**
 * The database side of a merge, in the transaction that also moves the branch: the change becomes
 * merged (only from a non-final state, so a change never merges twice), provenance says who
 * produced the commit, linked open issues close (a failing issue is skipped inside), change.merged.
 */
export async function recordMerged(
  tx: Tx,
  input: { project: Project; change: Change; commit: string; mergedById: string; strategy: string; actor: string; agentModels: Map<string, string | null> },
): Promise<void> {
  const { project, change, commit } = input;
  const updated = await tx.change.updateMany({
    where: { id: change.id, status: { notIn: ["merged", "rejected"] } },
    data: { status: "merged", mergedSha: commit, mergedAt: new Date(), mergedById: input.mergedById },
  });
  if (updated.count !== 1) throw badRequest("The change is already merged or rejected");
  await tx.provenance.create({
    data: {
      projectId: project.id,
      changeId: change.id,
      commitSha: commit,
      authorId: change.authorId,
      agentId: change.agentId,
      model: change.agentId ? (input.agentModels.get(change.agentId) ?? null) : null,
    },
  });
  await closeIssuesLinkedToChange(tx, { projectId: project.id, changeId: change.id });
  await recordEvent(tx, {
    projectId: project.id,
    kind: "change.merged",
    actor: input.actor,
    data: { changeId: change.id, commit, strategy: input.strategy, baseSha: change.baseSha, tipSha: change.tipSha },
  });
}

/** The models of the agents that produced a set of changes (for provenance), in one query. */
export async function agentModels(tx: DbOrTx, changes: Array<Pick<Change, "agentId">>): Promise<Map<string, string | null>> {
  const ids = [...new Set(changes.flatMap((c) => (c.agentId ? [c.agentId] : [])))];
  if (ids.length === 0) return new Map();
  const agents = await tx.agent.findMany({ where: { id: { in: ids } }, select: { id: true, model: true } });
  return new Map(agents.map((a) => [a.id, a.model]));
}

/** The post-merge policy check: the policy the merged commit leaves on the default branch must parse. */
export async function postMergeCheck(repo: Repo, commit: string): Promise<{ status: "passed" | "failed"; message?: string }> {
  const policy = await loadPolicy(repo, commit);
  return policy.ok ? { status: "passed" } : { status: "failed", message: policy.error };
}
