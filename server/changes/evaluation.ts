import { randomUUID } from "node:crypto";
import type { Change, EvalRun, Evaluation, Project } from "@/server/generated/prisma/client";
import { insertRowsSql, type Tx } from "@/server/db";
import { recordEvent } from "@/server/events";
import type { ChangeStatus } from "@/server/generated/prisma/enums";
import {
  branchRef,
  copyObjects,
  hasObject,
  headBranch,
  holdsOwnObjects,
  openProjectRepo,
  openWorkspaceRepo,
  readCommit,
  readRef,
  repoExists,
  pinRef,
  type Repo,
} from "@/server/git";
import { DomainError, conflict, invalid, upstreamFailed } from "@/server/errors";
import { loadPolicy, type PolicyResult } from "@/server/policy";
import { type ChangeDiff, type EvaluationOutcome, runEvaluation } from "@/server/evaluators";
import { buildChangeDiff, SubmoduleError } from "./diff/change-diff";

/** The project repository and the tip of its default branch. */
/** The evaluators' input (the diff) could not be built: not the caller's fault, nor a verdict. */
export const diffPreparationFailed = (error: unknown) =>
  upstreamFailed(`The diff for the evaluators could not be built: ${(error as Error).message}`, "EVAL_PREP_FAILED");

export function projectHead(project: Project): { repo: Repo; head: string } {
  const repo = openProjectRepo(project.id);
  const head = readRef(repo, branchRef(project.defaultBranch));
  if (!head) throw conflict(`The default branch ${project.defaultBranch} does not exist`, "NO_DEFAULT_BRANCH");
  return { repo, head };
}

/** The workspace's current tip, or null when its repository or branch cannot be read. */
export function workspaceTip(project: Project, workspaceName: string): string | null {
  const repo = openWorkspaceRepo(project.id, workspaceName);
  if (!repoExists(repo)) return null;
  const branch = headBranch(repo);
  return branch ? readRef(repo, branchRef(branch)) : null;
}

/** Keeps an evaluated tip reachable in the project repository (refs/svc/changes/<id>), safe from gc. */
async function pinTip(repo: Repo, changeId: string, tip: string): Promise<void> {
  await pinRef(repo, `refs/svc/changes/${changeId}`, tip);
}

export interface PreparedEvaluation {
  head: string;
  tip: string;
  title: string;
  diff: ChangeDiff;
  policy: PolicyResult;
  outcome: EvaluationOutcome;
}

const firstLine = (message: string) => message.split("\n", 1)[0].trim().slice(0, 200);

/**
 * Diffs a workspace against its project's default branch and evaluates it under the policy in
 * force there. The tip's objects must be in the project repository (merges read them there). 400 for a workspace with submodules or without changes; 502 EVAL_PREP_FAILED when the
 * diff cannot be built.
 */
export async function evaluateWorkspace(project: Project, workspaceName: string, changeId: string): Promise<PreparedEvaluation> {
  const { repo, head } = projectHead(project);
  const tip = workspaceTip(project, workspaceName);
  if (!tip) throw invalid(`Workspace ${workspaceName} has no commits to propose`);
  let diff: ChangeDiff;
  try {
    // In-process workspace commits are written into the project's store already; only objects a
    // push left in the workspace's own store need copying.
    const workspace = openWorkspaceRepo(project.id, workspaceName);
    if (!(await hasObject(repo, tip)) || holdsOwnObjects(workspace)) await copyObjects(workspace, repo, tip);
    await pinTip(repo, changeId, tip);
    diff = await buildChangeDiff(repo, head, tip);
  } catch (error) {
    if (error instanceof SubmoduleError) throw invalid(error.message);
    if (error instanceof DomainError) throw error;
    throw diffPreparationFailed(error);
  }
  if (diff.files.length === 0) throw invalid(`Workspace ${workspaceName} has no changes against ${project.defaultBranch}`);
  const policy = await loadPolicy(repo, head);
  const outcome = await runEvaluation({ project: { id: project.id, path: `@${project.namespace}/${project.slug}` }, changeId, repo, diff, policy });
  return { head, tip, title: firstLine((await readCommit(repo, tip)).message), diff, policy, outcome };
}

export const newChangeId = () => randomUUID();

/** The rows of an evaluation round of the change `changeId`: its evaluation result and one run per evaluator. */
export function evaluationRows(changeId: string, round: number, prepared: PreparedEvaluation): { evaluation: Evaluation; runs: EvalRun[] } {
  const { outcome, head, tip } = prepared;
  const createdAt = new Date();
  const evaluation = { id: randomUUID(), changeId, round, verdict: outcome.verdict, baseSha: head, tipSha: tip, summary: outcome.summary, issues: outcome.issues, createdAt };
  const runs = outcome.runs.map((run) => ({
    id: randomUUID(),
    changeId,
    round,
    evaluator: run.evaluator,
    status: run.status,
    // JSON, as stored (an interface, which TypeScript does not see as JSON).
    findings: run.findings as unknown as EvalRun["findings"],
    durationMs: run.durationMs,
    costUsd: run.costUsd ?? null,
    inputTokens: run.inputTokens ?? null,
    outputTokens: run.outputTokens ?? null,
    baseSha: head,
    tipSha: tip,
    createdAt,
  }));
  return { evaluation, runs };
}

/** Inserts `evaluationRows`' evaluation (the JSON parameter `rows`, an array of it). */
export const insertEvaluationsSql = (rows: string) =>
  insertRowsSql(
    "Evaluation",
    { id: "uuid", changeId: "uuid", round: "int", verdict: '"Verdict"', baseSha: "text", tipSha: "text", summary: "text", issues: "jsonb", createdAt: "timestamp(3)" },
    "",
    rows,
  );

/** Inserts `evaluationRows`' runs (the JSON parameter `rows`). */
export const insertEvalRunsSql = (rows: string) =>
  insertRowsSql(
    "EvalRun",
    {
      id: "uuid",
      changeId: "uuid",
      round: "int",
      evaluator: "text",
      status: '"EvalRunStatus"',
      findings: "jsonb",
      durationMs: "int",
      costUsd: "double precision",
      inputTokens: "int",
      outputTokens: "int",
      baseSha: "text",
      tipSha: "text",
      createdAt: "timestamp(3)",
    },
    "",
    rows,
  );

const INSERT_EVAL_RUNS = insertEvalRunsSql("$1");

/** Stores a further evaluation round: the change's one evaluation result (replaced) and one run per evaluator. */
async function persistEvaluation(tx: Tx, change: Pick<Change, "id">, round: number, prepared: PreparedEvaluation) {
  const { evaluation: row, runs } = evaluationRows(change.id, round, prepared);
  const { id, changeId, ...stored } = row;
  const data = { ...stored, issues: prepared.outcome.issues };
  const evaluation = await tx.evaluation.upsert({ where: { changeId }, create: { id, changeId, ...data }, update: data });
  await tx.$executeRawUnsafe(INSERT_EVAL_RUNS, JSON.stringify(runs));
  return { evaluation, runs };
}

/**
 * Stores a re-evaluation round of a change locked by the caller: approvals are dismissed when the
 * evaluated base moved, then the change takes the new base, tip and the status `statusAfter` reads
 * (after the dismissal), and `change.evaluated` is recorded.
 */
export async function recordReevaluation(
  tx: Tx,
  current: Change,
  prepared: PreparedEvaluation,
  outcome: { statusAfter: (tx: Tx) => Promise<ChangeStatus>; actor: string },
) {
  const baseMoved = prepared.head !== current.baseSha;
  if (baseMoved) {
    await tx.review.updateMany({ where: { changeId: current.id, verdict: "approve", dismissedAt: null }, data: { dismissedAt: new Date() } });
  }
  const previous = await tx.evaluation.findUnique({ where: { changeId: current.id }, select: { round: true } });
  const status = await outcome.statusAfter(tx);
  await tx.change.update({ where: { id: current.id }, data: { status, baseSha: prepared.head, tipSha: prepared.tip } });
  const stored = await persistEvaluation(tx, current, (previous?.round ?? 0) + 1, prepared);
  await recordEvent(tx, {
    projectId: current.projectId,
    kind: "change.evaluated",
    actor: outcome.actor,
    data: { changeId: current.id, verdict: prepared.outcome.verdict, status, baseMoved },
  });
  return stored;
}
