import type { Project } from "@/server/generated/prisma/client";
import type { Repo } from "@/server/git";
import { runEvaluation } from "@/server/evaluators";
import { loadPolicy, type PolicyResult } from "@/server/policy";
import { buildChangeDiff } from "../diff/change-diff";

/**
 * Evaluates a projected tree on the head it will land on: the policy's evaluators over everything
 * it brings (head..commit, under the policy in force at head), and the policy it leaves behind must
 * still parse. `changeId` names the entry the projected tree ends with.
 */
export async function evaluateProjected(
  project: Project,
  repo: Repo,
  policy: PolicyResult,
  head: string,
  commit: string,
  changeId: string,
): Promise<{ passed: boolean; issues: string[] }> {
  const diff = await buildChangeDiff(repo, head, commit);
  const outcome = await runEvaluation({
    project: { id: project.id, path: `@${project.namespace}/${project.slug}` },
    changeId,
    repo,
    diff,
    policy,
  });
  const after = await loadPolicy(repo, commit);
  const issues = [...outcome.issues, ...(after.ok ? [] : [`policy: ${after.error}`])];
  return { passed: outcome.verdict === "passed" && after.ok, issues };
}
