import type { Change, Project } from "@/server/generated/prisma/client";
import { actorOf, type UserIdentity } from "@/server/auth";
import { db } from "@/server/db";
import { forbidden } from "@/server/errors";
import { loadPolicy } from "@/server/policy";
import { commitAuthorship, requireProject } from "@/server/projects";
import { workspaceNames } from "@/server/workspaces";
import { reviewStates } from "@/server/changes/reviews/rules";
import { projectHead } from "../evaluation";
import { isUuid } from "../load";
import { recordConflicts } from "../conflicts/record";
import { writeLandingCommit } from "./commit";
import { firstGateFailure, skipReason } from "./gates";
import { agentModels, landOnDefaultBranch, recordMerged, retryWhenBranchMoves } from "./land";
import { MergeSession } from "./merge-tree";

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
export async function mergeBatch(identity: UserIdentity, ref: ProjectRef, input: { changeIds: string[]; force: boolean }) {
  const started = performance.now();
  const { project } = await requireProject(identity, ref, "write");
  const { author } = commitAuthorship(identity);
  return retryWhenBranchMoves(BATCH_ATTEMPTS_MAX, () => attemptBatch(identity, project, input, author, started));
}

async function attemptBatch(
  identity: UserIdentity,
  project: Project,
  input: { changeIds: string[]; force: boolean },
  author: { name: string; email: string },
  started: number,
) {
  const prisma = await db();
  const resolveStart = performance.now();
  const ids = [...new Set(input.changeIds)];
  const skipped: Skip[] = [];
  const { repo, head } = projectHead(project);
  const policy = await loadPolicy(repo, head);
  if (input.force && policy.ok && !policy.policy.merge.allowForce) {
    throw forbidden("Merge blocked by branch protection", "PROTECTION_BLOCKED", { reasons: ["force needs merge.allowForce: true in the project policy"] });
  }
  const found = await prisma.change.findMany({ where: { id: { in: ids.filter(isUuid) }, projectId: project.id } });
  const byId = new Map(found.map((c) => [c.id, c]));
  const [evaluations, workspaces, reviews] = await Promise.all([
    prisma.evaluation.findMany({ where: { changeId: { in: found.map((c) => c.id) } }, select: { changeId: true, verdict: true } }),
    workspaceNames(found.map((c) => c.workspaceId), prisma),
    reviewStates(prisma, found),
  ]);
  const passed = new Set(evaluations.filter((e) => e.verdict === "passed").map((e) => e.changeId));
  const eligible: Change[] = [];
  for (const id of ids) {
    const change = byId.get(id);
    if (!change) {
      skipped.push({ changeId: id, reason: "Not a change of this project" });
      continue;
    }
    const failure = await firstGateFailure({
      project,
      change,
      workspace: workspaces.get(change.workspaceId) ?? null,
      repo,
      head,
      policy,
      reviews: reviews.get(change.id)!,
      evaluationPassed: passed.has(change.id),
      force: input.force,
    });
    if (failure) skipped.push({ changeId: id, reason: skipReason(failure) });
    else eligible.push(change);
  }
  const resolveMs = since(resolveStart);

  const batchStart = performance.now();
  const merged: Array<{ change: Change; commit: string }> = [];
  const conflicted: Array<{ change: Change; files: string[]; head: string }> = [];
  let current = head;
  if (eligible.length > 0) {
    const session = new MergeSession(repo);
    try {
      for (const change of eligible) {
        const outcome = await session.merge(current, change.tipSha);
        if (!outcome.clean) {
          conflicted.push({ change, files: outcome.conflictingFiles, head: current });
          continue;
        }
        const workspace = workspaces.get(change.workspaceId) ?? null;
        current = await writeLandingCommit(session.repo, { tree: outcome.tree, head: current, change, workspace, strategy: "merge", signature: author });
        merged.push({ change, commit: current });
      }
      session.flush();
    } finally {
      session.close();
    }
  }
  const batchMs = since(batchStart);

  const persistStart = performance.now();
  const models = await agentModels(prisma, merged.map((m) => m.change));
  await landOnDefaultBranch(
    project,
    repo,
    { head, commit: current, changeIds: merged.map((m) => m.change.id), actor: actorOf(identity), cause: "batch" },
    async (tx) => {
      await recordMerged(tx, { project, merged, mergedById: identity.userId, strategy: "merge", actor: actorOf(identity), agentModels: models });
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
