import type { Project } from "@/server/generated/prisma/client";
import type { Repo } from "@/server/git";
import { startEvaluation, summarizeRuns, type BackgroundRunSpec, type EvalRunResult } from "@/server/evaluators";
import { loadPolicy, type PolicyResult } from "@/server/policy";
import { buildChangeDiff } from "../diff/change-diff";

export interface Verdict {
  passed: boolean;
  issues: string[];
}

/** A background run's end as the verdict reads it. */
export type BackgroundResult = Pick<EvalRunResult, "evaluator" | "status" | "findings">;

/** The ends of the background runs of a projected commit, or null while some still run (queued by it). */
export type BackgroundVerdicts = (
  specs: BackgroundRunSpec[],
  commit: string,
  changeId: string,
) => Promise<BackgroundResult[] | null>;

/**
 * Evaluates a projected tree on the head it will land on: the policy's evaluators over everything
 * it brings (head..commit, under the policy in force at head), and the policy it leaves behind must
 * still parse. `changeId` names the entry the projected tree ends with. The fast evaluators run
 * here; the long ones are asked of `background` (not when the fast ones already failed): null while
 * they run. A policy without long ones gives its verdict at once.
 */
export async function evaluateProjected(
  project: Project,
  repo: Repo,
  policy: PolicyResult,
  head: string,
  commit: string,
  changeId: string,
  background: BackgroundVerdicts,
): Promise<Verdict | null> {
  const diff = await buildChangeDiff(repo, head, commit);
  const subject = {
    project: { id: project.id, path: `@${project.namespace}/${project.slug}` },
    changeId,
    repo,
    diff,
    policy,
  };
  const after = await loadPolicy(repo, commit);
  const afterIssues = after.ok ? [] : [`policy: ${after.error}`];
  const { runs, background: specs } = await startEvaluation(subject);
  const fast = summarizeRuns(runs);
  if (fast.verdict === "failed" || !after.ok || specs.length === 0)
    return { passed: fast.verdict === "passed" && after.ok, issues: [...fast.issues, ...afterIssues] };
  const ended = await background(specs, commit, changeId);
  if (!ended) return null;
  const outcome = summarizeRuns([...runs, ...ended]);
  return { passed: outcome.verdict === "passed", issues: outcome.issues };
}
