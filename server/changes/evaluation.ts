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
  pinUnknownRef,
  type Repo,
} from "@/server/git";
import { DomainError, conflict, invalid, upstreamFailed } from "@/server/errors";
import { loadPolicy, type PolicyResult } from "@/server/policy";
import {
  type ChangeDiff,
  type EvalRunResult,
  runEvaluation,
  startEvaluation,
  summarizeRuns,
} from "@/server/evaluators";
import { plannedRunFields, plannedRuns, type PlannedRun } from "./runs/plan";
import { cancelUnfinishedRuns } from "./runs/store";
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

/**
 * Keeps an evaluated tip reachable in the project repository (refs/svc/changes/<id>), safe from gc.
 * A change being created has an id no one else knows yet: its pin need not wait for the project's lock.
 */
async function pinTip(repo: Repo, changeId: string, tip: string, newChange: boolean): Promise<void> {
  const ref = `refs/svc/changes/${changeId}`;
  await (newChange ? pinUnknownRef(repo, ref, tip) : pinRef(repo, ref, tip));
}

/**
 * An evaluation round as the request leaves it: the runs done (fast evaluators, reused results)
 * and the background runs still to go; `verdict` is null until they end.
 */
export interface StartedEvaluation {
  verdict: "passed" | "failed" | null;
  summary: string;
  issues: string[];
  runs: EvalRunResult[];
  background: PlannedRun[];
}

export interface PreparedEvaluation {
  head: string;
  tip: string;
  title: string;
  diff: ChangeDiff;
  policy: PolicyResult;
  outcome: StartedEvaluation;
}

const firstLine = (message: string) => message.split("\n", 1)[0].trim().slice(0, 200);

/** The outcome of a round whose background runs are `background` (reused ones are final). */
export function startedOutcome(runs: EvalRunResult[], background: PlannedRun[]): StartedEvaluation {
  const going = background.filter((run) => !run.reused).length;
  const final = [
    ...runs,
    ...background.flatMap((run) =>
      run.reused ? [{ evaluator: run.evaluator, status: run.reused.status, findings: run.reused.findings }] : [],
    ),
  ];
  const summary = summarizeRuns(final);
  if (going === 0) return { ...summary, runs, background };
  return {
    verdict: null,
    summary: `Evaluating: ${going} run(s) in progress`,
    issues: summary.issues,
    runs,
    background,
  };
}

/**
 * Diffs a workspace against its project's default branch and evaluates it under the policy in
 * force there: the fast evaluators now, the long ones planned as background runs (`inline`: every
 * evaluator now, for callers that are jobs themselves; `newChange`: the change is being created,
 * under an id no one else knows yet). The tip's objects must be in the project repository (merges
 * read them there). 400 for a workspace with submodules or without changes; 502 EVAL_PREP_FAILED
 * when the diff cannot be built.
 */
export async function evaluateWorkspace(
  project: Project,
  workspaceName: string,
  changeId: string,
  options: { inline?: boolean; newChange?: boolean } = {},
): Promise<PreparedEvaluation> {
  const { repo, head } = projectHead(project);
  const tip = workspaceTip(project, workspaceName);
  if (!tip) throw invalid(`Workspace ${workspaceName} has no commits to propose`);
  let diff: ChangeDiff;
  try {
    // In-process workspace commits are written into the project's store already; only objects a
    // push left in the workspace's own store need copying.
    const workspace = openWorkspaceRepo(project.id, workspaceName);
    if (!(await hasObject(repo, tip)) || holdsOwnObjects(workspace)) await copyObjects(workspace, repo, tip);
    await pinTip(repo, changeId, tip, options.newChange ?? false);
    diff = await buildChangeDiff(repo, head, tip);
  } catch (error) {
    if (error instanceof SubmoduleError) throw invalid(error.message);
    if (error instanceof DomainError) throw error;
    throw diffPreparationFailed(error);
  }
  if (diff.files.length === 0)
    throw invalid(`Workspace ${workspaceName} has no changes against ${project.defaultBranch}`);
  const policy = await loadPolicy(repo, head);
  const subject = {
    project: { id: project.id, path: `@${project.namespace}/${project.slug}` },
    changeId,
    repo,
    diff,
    policy,
  };
  const title = firstLine((await readCommit(repo, tip)).message);
  if (options.inline) {
    const outcome = await runEvaluation(subject);
    return { head, tip, title, diff, policy, outcome: { ...outcome, background: [] } };
  }
  const { runs, background } = await startEvaluation(subject);
  return {
    head,
    tip,
    title,
    diff,
    policy,
    outcome: startedOutcome(runs, await plannedRuns(project.id, repo, tip, background)),
  };
}

export const newChangeId = () => randomUUID();

/** The rows of an evaluation round of the change `changeId`: its evaluation result and one run per evaluator. */
export function evaluationRows(
  changeId: string,
  projectId: string,
  round: number,
  prepared: PreparedEvaluation,
): { evaluation: Evaluation; runs: EvalRun[] } {
  const { outcome, head, tip } = prepared;
  const createdAt = new Date();
  const evaluation = {
    id: randomUUID(),
    changeId,
    round,
    verdict: outcome.verdict,
    baseSha: head,
    tipSha: tip,
    summary: outcome.summary,
    issues: outcome.issues,
    createdAt,
  };
  const row = (
    fields: Partial<EvalRun> & Pick<EvalRun, "evaluator" | "status" | "findings" | "durationMs">,
  ): EvalRun => ({
    id: randomUUID(),
    changeId,
    round,
    costUsd: null,
    inputTokens: null,
    outputTokens: null,
    baseSha: head,
    tipSha: tip,
    createdAt,
    projectId,
    settings: null,
    reuseKey: null,
    startedAt: null,
    finishedAt: null,
    attempts: 0,
    flaky: false,
    exitCode: null,
    timedOut: false,
    cacheKey: null,
    cacheHit: null,
    reusedFrom: null,
    logBytes: 0,
    leaseOwner: null,
    leaseUntil: null,
    batchId: null,
    ...fields,
  });
  const done = outcome.runs.map((run) =>
    row({
      evaluator: run.evaluator,
      status: run.status,
      // JSON, as stored (an interface, which TypeScript does not see as JSON).
      findings: run.findings as unknown as EvalRun["findings"],
      durationMs: run.durationMs,
      costUsd: run.costUsd ?? null,
      inputTokens: run.inputTokens ?? null,
      outputTokens: run.outputTokens ?? null,
      startedAt: createdAt,
      finishedAt: createdAt,
      attempts: 1,
    }),
  );
  const background = outcome.background.map((planned) => row(plannedRunFields(planned, createdAt)));
  return { evaluation, runs: [...done, ...background] };
}

/** Inserts `evaluationRows`' evaluation (the JSON parameter `rows`, an array of it). */
export const insertEvaluationsSql = (rows: string) =>
  insertRowsSql(
    "Evaluation",
    {
      id: "uuid",
      changeId: "uuid",
      round: "int",
      verdict: '"Verdict"',
      baseSha: "text",
      tipSha: "text",
      summary: "text",
      issues: "jsonb",
      createdAt: "timestamp(3)",
    },
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
      projectId: "uuid",
      settings: "jsonb",
      reuseKey: "text",
      startedAt: "timestamp(3)",
      finishedAt: "timestamp(3)",
      attempts: "int",
      flaky: "boolean",
      exitCode: "int",
      timedOut: "boolean",
      cacheKey: "text",
      cacheHit: "boolean",
      reusedFrom: "uuid",
    },
    "",
    rows,
  );

const INSERT_EVAL_RUNS = insertEvalRunsSql("$1");

/** Stores a further evaluation round: the change's one evaluation result (replaced) and one run per evaluator. */
async function persistEvaluation(
  tx: Tx,
  change: Pick<Change, "id" | "projectId">,
  round: number,
  prepared: PreparedEvaluation,
) {
  const { evaluation: row, runs } = evaluationRows(change.id, change.projectId, round, prepared);
  const { id, changeId, ...stored } = row;
  const data = { ...stored, issues: prepared.outcome.issues };
  const evaluation = await tx.evaluation.upsert({
    where: { changeId },
    create: { id, changeId, ...data },
    update: data,
  });
  await tx.$executeRawUnsafe(INSERT_EVAL_RUNS, JSON.stringify(runs));
  return { evaluation, runs };
}

/**
 * Stores a re-evaluation round of a change locked by the caller: its unfinished runs are cancelled,
 * approvals are dismissed when the evaluated base moved, then the change takes the new base, tip
 * and the status `statusAfter` reads for the verdict (after the dismissal); `change.evaluated` is
 * recorded. A round with background runs going leaves the change `open`: their end decides.
 */
export async function recordReevaluation(
  tx: Tx,
  current: Change,
  prepared: PreparedEvaluation,
  outcome: { statusAfter: (tx: Tx, verdict: "passed" | "failed") => Promise<ChangeStatus>; actor: string },
) {
  await cancelUnfinishedRuns(tx, current.id);
  const baseMoved = prepared.head !== current.baseSha;
  if (baseMoved) {
    await tx.review.updateMany({
      where: { changeId: current.id, verdict: "approve", dismissedAt: null },
      data: { dismissedAt: new Date() },
    });
  }
  const previous = await tx.evaluation.findUnique({ where: { changeId: current.id }, select: { round: true } });
  const { verdict } = prepared.outcome;
  const status = verdict === null ? "open" : await outcome.statusAfter(tx, verdict);
  await tx.change.update({ where: { id: current.id }, data: { status, baseSha: prepared.head, tipSha: prepared.tip } });
  const stored = await persistEvaluation(tx, current, (previous?.round ?? 0) + 1, prepared);
  if (verdict !== null) {
    await recordEvent(tx, {
      projectId: current.projectId,
      kind: "change.evaluated",
      actor: outcome.actor,
      data: { changeId: current.id, verdict, status, baseMoved },
    });
  }
  return stored;
}
