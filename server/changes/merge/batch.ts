import type { Change } from "@/server/generated/prisma/client";
import { actorOf, type UserIdentity } from "@/server/auth";
import { forbidden } from "@/server/errors";
import { loadPolicy } from "@/server/policy";
import { commitAuthorship, requireProject } from "@/server/projects";
import { projectHead } from "../evaluation";
import { isUuid } from "../load";
import { recordConflicts } from "../conflicts/record";
import { writeLandingCommit } from "./commit";
import { firstGateFailure, skipReason } from "./gates";
import { landOnDefaultBranch, recordMerged, retryWhenBranchMoves } from "./land";
import { MergeSession } from "./merge-tree";
import { changesFactsAlongside, type ChangeFacts } from "./facts";

type ProjectRef = { namespace: string; slug: string } | { id: string };

/** Whole-batch attempts when the branch moves between the batch's merge and its single push. */
const BATCH_ATTEMPTS_MAX = 3;

interface Skip {
  changeId: string;
  reason: string;
}

const since = (start: number) => Math.round((performance.now() - start) * 100) / 100;

/**
 * Resolves and gates every change, merges the eligible ones one after the other onto the head
 * (one long-running merge-tree for the batch), then records them and moves the default branch with
 * a single compare-and-swap. Timings are measured server time of each phase.
 */
export async function mergeBatch(
  identity: UserIdentity,
  ref: ProjectRef,
  input: { changeIds: string[]; force: boolean },
) {
  const started = performance.now();
  const { author } = commitAuthorship(identity);
  return retryWhenBranchMoves(BATCH_ATTEMPTS_MAX, () => attemptBatch(identity, ref, input, author, started));
}

async function attemptBatch(
  identity: UserIdentity,
  ref: ProjectRef,
  input: { changeIds: string[]; force: boolean },
  author: { name: string; email: string },
  started: number,
) {
  const resolveStart = performance.now();
  const ids = [...new Set(input.changeIds)];
  // The project and every change's facts in one statement, read again on each attempt: a change
  // may have moved on (merged, rejected) while the branch moved.
  const { project, alongside } = await requireProject(identity, ref, "write", {
    alongside: changesFactsAlongside(ids.filter(isUuid)),
  });
  const facts = new Map((alongside ?? []).map((fact) => [fact.change.id, fact]));
  const skipped: Skip[] = [];
  const { repo, head } = projectHead(project);
  const policy = await loadPolicy(repo, head);
  if (input.force && policy.ok && !policy.policy.merge.allowForce) {
    throw forbidden("Merge blocked by branch protection", "PROTECTION_BLOCKED", {
      reasons: ["force needs merge.allowForce: true in the project policy"],
    });
  }
  const eligible: ChangeFacts[] = [];
  for (const id of ids) {
    const fact = facts.get(id);
    if (!fact) {
      skipped.push({ changeId: id, reason: "Not a change of this project" });
      continue;
    }
    const failure = await firstGateFailure({ ...fact, project, repo, head, policy, force: input.force });
    if (failure) skipped.push({ changeId: id, reason: skipReason(failure) });
    else eligible.push(fact);
  }
  const resolveMs = since(resolveStart);

  const batchStart = performance.now();
  const merged: Array<{ change: Change; commit: string }> = [];
  const conflicted: Array<{ change: Change; files: string[]; head: string }> = [];
  let current = head;
  if (eligible.length > 0) {
    const session = new MergeSession(repo);
    try {
      for (const { change, workspace } of eligible) {
        const outcome = await session.merge(current, change.tipSha);
        if (!outcome.clean) {
          conflicted.push({ change, files: outcome.conflictingFiles, head: current });
          continue;
        }
        current = await writeLandingCommit(session.repo, {
          tree: outcome.tree,
          head: current,
          change,
          workspace,
          strategy: "merge",
          signature: author,
        });
        merged.push({ change, commit: current });
      }
      session.flush();
    } finally {
      session.close();
    }
  }
  const batchMs = since(batchStart);

  const persistStart = performance.now();
  const models = new Map(
    merged.flatMap(({ change }) =>
      change.agentId ? [[change.agentId, facts.get(change.id)!.agentModel] as const] : [],
    ),
  );
  await landOnDefaultBranch(
    project,
    repo,
    { head, commit: current, changeIds: merged.map((m) => m.change.id), actor: actorOf(identity), cause: "batch" },
    async (tx) => {
      await recordMerged(tx, {
        project,
        merged,
        mergedById: identity.userId,
        strategy: "merge",
        actor: actorOf(identity),
        agentModels: models,
      });
      await recordConflicts(tx, project.id, conflicted);
    },
    { timeout: 60_000 },
  );
  const persistMs = since(persistStart);
  return {
    merged: merged.map((m) => m.change.id),
    conflicted: conflicted.map((c) => c.change.id),
    skipped,
    commit: current,
    timings: { resolveMs, batchMs, persistMs, serverMs: since(started) },
  };
}
