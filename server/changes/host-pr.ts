import type { Change } from "@/server/generated/prisma/client";
import type { UserIdentity } from "@/server/auth";
import { config } from "@/server/config";
import { db } from "@/server/db";
import { invalid } from "@/server/errors";
import { openProjectRepo, spawnGitWatched, withRepoLock } from "@/server/git";
import { projectSourceOf } from "@/server/imports";
import { inngest } from "@/server/jobs";
import {
  ProviderError,
  classifyGitFailure,
  createPullRequest,
  gitFailureMessage,
  postCommitStatus,
  postPullRequestComment,
  providerGitEnv,
  providerRefusal,
  sourceGitUrl,
} from "@/server/providers";
import { lockChange, loadChange } from "./load";

/** The job that posts a promoted change's verdict to its pull request (status + comment). */
export const HOST_VERDICT_EVENT = "svc/change.host-verdict";

export interface HostPullRequest {
  owner: string;
  repo: string;
  branch: string;
  pullRequestNumber: number;
  pullRequestUrl: string;
  /** The tip last pushed to `svc/<changeId>` (a background re-evaluation pushes a newer one). */
  pushedSha?: string;
}

const hostBranch = (changeId: string) => `svc/${changeId}`;

/** Pushes the change's evaluated tip to `svc/<changeId>` on the source (force: the branch is ours). */
export async function pushTip(
  projectId: string,
  source: { owner: string; repo: string },
  change: Pick<Change, "id" | "tipSha">,
): Promise<void> {
  const result = await spawnGitWatched(
    ["push", "--porcelain", sourceGitUrl(source), `+${change.tipSha}:refs/heads/${hostBranch(change.id)}`],
    {
      gitdir: openProjectRepo(projectId).gitdir,
      env: providerGitEnv(),
    },
  );
  if (result.exitCode !== 0)
    throw new ProviderError(classifyGitFailure(result.stderr), gitFailureMessage(result.stderr));
}

/**
 * POST /api/changes/{id}/host-pr: pushes the evaluated tip to `svc/<changeId>` on the project's
 * source and opens a pull request against the recorded default branch; the change becomes
 * `promoted`. A repeat answers the recorded pull request. Promotions of one change serialize on
 * its lock (advisory on PostgreSQL), so two racing requests open one pull request.
 */
export async function promoteChange(
  identity: UserIdentity,
  id: string,
  input: { title?: string; body?: string; draft: boolean },
) {
  const { change, project } = await loadChange(identity, id, "write");
  const source = await projectSourceOf(project.id);
  const missing = [
    change.status === "accepted" || change.status === "promoted"
      ? null
      : `an accepted change (this one is ${change.status})`,
    source ? null : "a project connected to the hosting provider",
    config.githubToken ? null : "a provider token (GITHUB_TOKEN)",
  ].filter(Boolean);
  if (missing.length || !source) throw invalid(`Promotion needs ${missing.join(", ")}`);
  const host = await withRepoLock(`host-pr:${id}`, async () => {
    const current = await (await db()).change.findUniqueOrThrow({ where: { id } });
    if (current.hostPullRequest) return current.hostPullRequest as unknown as HostPullRequest;
    try {
      await pushTip(project.id, source, current);
      const pull = await createPullRequest(source, {
        title: input.title ?? current.title ?? `Change ${id}`,
        body: input.body ?? `Proposed on svc-forge as change ${id} (evaluated tip ${current.tipSha}).`,
        head: hostBranch(id),
        base: project.defaultBranch,
        draft: input.draft,
      });
      const recorded: HostPullRequest = {
        owner: source.owner,
        repo: source.repo,
        branch: hostBranch(id),
        pullRequestNumber: pull.number,
        pullRequestUrl: pull.url,
        pushedSha: current.tipSha,
      };
      await (
        await db()
      ).$transaction(async (tx) => {
        const locked = await lockChange(tx, id);
        if (locked.status !== "accepted" && locked.status !== "promoted")
          throw invalid(`A ${locked.status} change cannot be promoted`);
        await tx.change.update({ where: { id }, data: { status: "promoted", hostPullRequest: { ...recorded } } });
      });
      return recorded;
    } catch (error) {
      throw providerRefusal(error);
    }
  });
  await inngest.send({ name: HOST_VERDICT_EVENT, data: { changeId: id } });
  return {
    changeId: id,
    host: {
      owner: host.owner,
      repo: host.repo,
      branch: host.branch,
      pullRequestNumber: host.pullRequestNumber,
      pullRequestUrl: host.pullRequestUrl,
    },
  };
}

const STATE_OF = { passed: "success", failed: "failure" } as const;

/**
 * Posts a promoted change's latest verdict to its pull request: a `svc/evaluation` commit status
 * on the evaluated tip and a comment. Provider failures throw, so the job retries them.
 */
export async function publishHostVerdict(changeId: string): Promise<{ posted: boolean }> {
  const prisma = await db();
  const change = await prisma.change.findUnique({ where: { id: changeId }, include: { evaluation: true } });
  const host = change?.hostPullRequest as unknown as HostPullRequest | null;
  if (!change || !host) return { posted: false };
  const evaluation = change.evaluation;
  const state = evaluation?.verdict ? STATE_OF[evaluation.verdict] : "error";
  const description = evaluation
    ? `${evaluation.verdict}: ${evaluation.summary}`.slice(0, 140)
    : "no evaluation recorded";
  const source = { owner: host.owner, repo: host.repo };
  await postCommitStatus(source, evaluation?.tipSha ?? change.tipSha, {
    state,
    context: "svc/evaluation",
    description,
  });
  const issues = (evaluation?.issues as string[] | undefined) ?? [];
  const body = [
    `**svc/evaluation: ${evaluation?.verdict ?? "error"}** (round ${evaluation?.round ?? 0}, tip ${evaluation?.tipSha ?? change.tipSha})`,
    "",
    evaluation?.summary ?? "",
    ...issues.map((issue) => `- ${issue}`),
  ].join("\n");
  await postPullRequestComment(source, host.pullRequestNumber, body);
  return { posted: true };
}
