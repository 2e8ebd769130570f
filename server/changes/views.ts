import type { Change, EvalRun, Evaluation, Project } from "@/server/generated/prisma/client";
import { db, type DbOrTx } from "@/server/db";
import { workspaceNames } from "@/server/workspaces";
import { projectPath } from "@/server/projects";

import { ChangeStatus } from "@/server/generated/prisma/enums";

export { ChangeStatus };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export interface ChangeNames {
  workspaces: Map<string, string>;
  users: Map<string, string>;
}

/** Workspace names and author usernames for a page of changes: two queries whatever its size. */
export async function namesFor(changes: Change[], client?: DbOrTx): Promise<ChangeNames> {
  const prisma = client ?? (await db());
  const userIds = [...new Set(changes.flatMap((c) => (c.authorId ? [c.authorId] : [])))];
  const [workspaces, users] = await Promise.all([
    workspaceNames(
      changes.map((c) => c.workspaceId),
      prisma,
    ),
    userIds.length
      ? prisma.user.findMany({ where: { id: { in: userIds } }, select: { id: true, username: true } })
      : [],
  ]);
  return { workspaces, users: new Map(users.map((u) => [u.id, u.username])) };
}

export function changeView(change: Change, project: Project, names: ChangeNames) {
  return {
    id: change.id,
    number: change.number,
    status: change.status,
    projectId: project.id,
    project: projectPath(project),
    workspace: names.workspaces.get(change.workspaceId) ?? null,
    author: change.authorId ? { id: change.authorId, username: names.users.get(change.authorId) ?? null } : null,
    agentId: change.agentId,
    title: change.title,
    baseSha: change.baseSha,
    tipSha: change.tipSha,
    mergedSha: change.mergedSha,
    mergedAt: iso(change.mergedAt),
    mergedById: change.mergedById,
    rejectedAt: iso(change.rejectedAt),
    revertedSha: change.revertedSha,
    revertedAt: iso(change.revertedAt),
    revertedById: change.revertedById,
    hostPullRequest: (change.hostPullRequest ?? null) as Record<string, unknown> | null,
    createdAt: change.createdAt.toISOString(),
    updatedAt: change.updatedAt.toISOString(),
  };
}

export function evalView(evaluation: Evaluation) {
  return {
    verdict: evaluation.verdict,
    round: evaluation.round,
    summary: evaluation.summary,
    issues: evaluation.issues as string[],
    baseSha: evaluation.baseSha,
    tipSha: evaluation.tipSha,
    createdAt: evaluation.createdAt.toISOString(),
  };
}

export function evalRunView(run: EvalRun) {
  return {
    id: run.id,
    evaluator: run.evaluator,
    round: run.round,
    status: run.status,
    findings: run.findings as Array<{ message: string; file?: string; line?: number; rule?: string }>,
    durationMs: run.durationMs,
    costUsd: run.costUsd,
    inputTokens: run.inputTokens,
    outputTokens: run.outputTokens,
    baseSha: run.baseSha,
    tipSha: run.tipSha,
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    attempts: run.attempts,
    flaky: run.flaky,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    cache: run.cacheKey === null ? null : { key: run.cacheKey, hit: run.cacheHit ?? false },
    reusedFrom: run.reusedFrom,
    logBytes: run.logBytes,
  };
}

/** Per-kind cost summaries over every eval run the change has had. */
export function costsOf(runs: EvalRun[]) {
  const byKind = new Map<
    string,
    { kind: string; runs: number; costUsd: number; inputTokens: number; outputTokens: number; durationMs: number }
  >();
  for (const run of runs) {
    const entry = byKind.get(run.evaluator) ?? {
      kind: run.evaluator,
      runs: 0,
      costUsd: 0,
      inputTokens: 0,
      outputTokens: 0,
      durationMs: 0,
    };
    entry.runs++;
    entry.costUsd += run.costUsd ?? 0;
    entry.inputTokens += run.inputTokens ?? 0;
    entry.outputTokens += run.outputTokens ?? 0;
    entry.durationMs += run.durationMs;
    byKind.set(run.evaluator, entry);
  }
  return [...byKind.values()];
}
