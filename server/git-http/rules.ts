import type { Project } from "@/server/generated/prisma/client";
import { branchRef, isValidBranchName, readRef, runGit, type Repo } from "@/server/git";
import { loadPolicy } from "@/server/policy";
import type { RefCommand } from "./proc-receive";

/**
 * Which ref updates a push may make, before any ref moves.
 *
 * Gated refs: the default branch of a project (never of a workspace). On it:
 * - deleting it is refused (also on workspaces: their branch is where workspace commits go);
 * - a push is refused outright while the policy on it (.svc/policy.yml at its current tip) asks
 *   for reviews or protection: `requiredApprovals` > 0, `protection.locked`, or
 *   `protection.allowDirectPush: false`; an unreadable policy refuses too (fail closed);
 * - otherwise a push is accepted unless its tip has a gitlink or a root .gitmodules
 *   (SUBMODULES_UNSUPPORTED), which change evaluation could not handle.
 * Other branches and tags of projects, and everything in workspaces, are not gated.
 */

export interface PushScope {
  project: Project;
  repo: Repo;
  /** Set when the push goes to a workspace fork. */
  workspace?: string;
  /** The branch of `repo` that HEAD names. */
  defaultBranch: string;
}

/** Why the project's default branch takes no direct pushes, or null when it does. */
export async function gatingReason(scope: PushScope): Promise<string | null> {
  const tip = readRef(scope.repo, branchRef(scope.defaultBranch));
  if (!tip) return null;
  const result = await loadPolicy(scope.repo, tip);
  if (!result.ok) return `the project policy cannot be read (${result.error})`;
  const { requiredApprovals, protection } = result.policy;
  if (requiredApprovals > 0)
    return `the project policy requires ${requiredApprovals} approval${requiredApprovals === 1 ? "" : "s"}`;
  if (protection.locked) return "the project policy locks it (protection.locked)";
  if (!protection.allowDirectPush)
    return "the project policy forbids direct pushes (protection.allowDirectPush: false)";
  return null;
}

const submoduleMessage = (path: string) =>
  path === ".gitmodules"
    ? "Git submodules are unsupported (SUBMODULES_UNSUPPORTED): .gitmodules at the root"
    : `Git submodules are unsupported (SUBMODULES_UNSUPPORTED): gitlink at ${path}`;

const GITLINK_MODE = "160000";

/** The path of a gitlink in `tip`'s tree, or ".gitmodules" when it has one at the root; else null. One spawn. */
export async function findSubmodule(repo: Repo, tip: string): Promise<string | null> {
  const { stdout } = await runGit(["ls-tree", "-r", "-z", tip], { gitdir: repo.gitdir });
  for (const record of stdout.split("\0")) {
    const tab = record.indexOf("\t");
    const path = record.slice(tab + 1);
    if (record.startsWith(`${GITLINK_MODE} `) || path === ".gitmodules") return path;
  }
  return null;
}

function refNameProblem(ref: string): string | null {
  const match = /^refs\/(heads|tags)\/(.+)$/.exec(ref);
  if (!match) return "only branches (refs/heads/*) and tags (refs/tags/*) can be pushed";
  return isValidBranchName(match[2]) ? null : "invalid ref name";
}

/**
 * Why `command` is refused, or null. `gate` is the default branch's gating reason, computed at
 * most once per push.
 */
export async function refusal(
  scope: PushScope,
  command: RefCommand,
  gate: () => Promise<string | null>,
): Promise<string | null> {
  const nameProblem = refNameProblem(command.ref);
  if (nameProblem) return nameProblem;
  if (command.ref !== branchRef(scope.defaultBranch)) return null;
  if (command.newOid === null) return "the default branch cannot be deleted";
  if (scope.workspace) return null;
  const gated = await gate();
  if (gated) return `${scope.defaultBranch} is gated: ${gated}; push to a workspace and open a change`;
  const submodule = await findSubmodule(scope.repo, command.newOid);
  return submodule ? submoduleMessage(submodule) : null;
}
