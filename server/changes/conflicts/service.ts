import { actingUserId, actorOf, type Identity } from "@/server/auth";
import { db } from "@/server/db";
import { RefConflictError } from "@/server/git";
import { DomainError, conflict, forbidden, gone, internal, unprocessable } from "@/server/errors";
import { loadPolicy } from "@/server/policy";
import { assertNotDeleting, commitAuthorship, projectPath, requireProject } from "@/server/projects";
import { runEvaluation } from "@/server/evaluators";
import { buildChangeDiff } from "@/server/changes/diff/change-diff";
import { diffPreparationFailed, projectHead } from "@/server/changes/evaluation";
import { isUuid, workspaceName } from "@/server/changes/load";
import { hardProtectionReasons } from "@/server/changes/merge/gates";
import { landingMessage } from "@/server/changes/merge/commit";
import { agentModels, landOnDefaultBranch, recordMerged } from "@/server/changes/merge/land";
import { mergeCommits } from "@/server/changes/merge/merge-tree";
import { resolutionFiles, writeResolvedMerge, type ResolutionStrategy } from "./resolution-tree";

const gitError = (error: unknown) =>
  internal(`The project's current revision cannot be read: ${(error as Error).message}`, "GIT_ERROR");

async function evaluateResolution(
  project: { id: string; namespace: string; slug: string },
  repo: ReturnType<typeof projectHead>["repo"],
  head: string,
  commit: string,
  changeId: string,
) {
  let diff;
  try {
    diff = await buildChangeDiff(repo, head, commit);
  } catch (error) {
    throw diffPreparationFailed(error);
  }
  const policy = await loadPolicy(repo, head);
  const reasons = hardProtectionReasons(policy);
  if (reasons.length > 0) throw forbidden("Merge blocked by branch protection", "PROTECTION_BLOCKED", { reasons });
  const outcome = await runEvaluation({
    project: { id: project.id, path: projectPath(project) },
    changeId,
    repo,
    diff,
    policy,
  });
  const secretScan = outcome.runs.find((run) => run.evaluator === "secretScan")!;
  if (secretScan.status !== "passed") {
    throw unprocessable("The resolution adds secrets", "SECRET_DETECTED", {
      issues: secretScan.findings.map((f) => f.message),
    });
  }
  if (outcome.verdict !== "passed")
    throw unprocessable("The resolution failed evaluation", "EVALUATION_FAILED", { issues: outcome.issues });
}

/**
 * Resolves a recorded merge conflict against the current default branch: re-merges the change's
 * evaluated tip, settles the conflicted paths by the strategy, runs the secret scan and the
 * policy's evaluators on the result, then lands it by compare-and-swap (STALE_PROJECT when the
 * branch moved meanwhile; nothing is committed then). 410 for an unknown or resolved conflict.
 */
export async function resolveConflict(
  identity: Identity,
  conflictId: string,
  input: { strategy: ResolutionStrategy; resolutions: Array<{ file: string; content: string }> },
) {
  const prisma = await db();
  const record = isUuid(conflictId) ? await prisma.conflict.findUnique({ where: { id: conflictId } }) : null;
  if (!record || record.status !== "open") throw gone("The conflict is unknown or already resolved");
  const { project } = await requireProject(identity, { id: record.projectId }, "write");
  assertNotDeleting(project);
  const change = await prisma.change.findUnique({ where: { id: record.changeId } });
  if (!change || change.status === "merged" || change.status === "rejected")
    throw gone("The conflict's change is no longer open");
  const { author } = commitAuthorship(identity);

  let head: string;
  let repo;
  let outcome;
  try {
    ({ repo, head } = projectHead(project));
    outcome = await mergeCommits(repo, head, record.tipSha);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw gitError(error);
  }
  const files = await resolutionFiles(repo, outcome, input.strategy, input.resolutions);
  const workspace = await workspaceName(prisma, change.workspaceId);
  const commit = await writeResolvedMerge(repo, {
    outcome,
    files,
    head,
    tip: record.tipSha,
    signature: author,
    message: await landingMessage(
      change,
      workspace,
      "Merged",
      `Conflicts resolved (${input.strategy}): ${outcome.conflictingFiles.join(", ") || "none left"}`,
    ),
  });
  await evaluateResolution(project, repo, head, commit, change.id);

  const models = await agentModels(prisma, [change]);
  try {
    await landOnDefaultBranch(
      project,
      repo,
      { head, commit, changeIds: [change.id], actor: actorOf(identity), cause: "resolve" },
      async (tx) => {
        const claimed = await tx.conflict.updateMany({
          where: { id: record.id, status: "open" },
          data: { status: "resolved", resolvedSha: commit, resolvedAt: new Date() },
        });
        if (claimed.count !== 1) throw gone("The conflict is unknown or already resolved");
        await recordMerged(tx, {
          project,
          merged: [{ change, commit }],
          mergedById: actingUserId(identity)!,
          strategy: `resolve:${input.strategy}`,
          actor: actorOf(identity),
          agentModels: models,
        });
      },
    );
  } catch (error) {
    if (error instanceof RefConflictError) {
      throw conflict(
        "The default branch moved while the resolution was evaluated; nothing was committed",
        "STALE_PROJECT",
        { currentHead: error.actual, baseSha: head },
      );
    }
    throw error;
  }
  return { status: "resolved" as const, commitSha: commit, conflictId: record.id, changeId: change.id };
}
