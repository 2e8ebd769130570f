import { initWorkspaceRepo, openProjectRepo, type Repo } from "./repo";
import { branchRef, readRef, updateRef } from "./refs";
import { runGit } from "./spawn";

/**
 * Forks a project for a workspace: a bare repository sharing the project's objects through
 * alternates, with `branch` at the project's tip of that branch (absent when the project has none).
 */
export async function createWorkspaceFork(projectId: string, workspaceName: string, branch: string): Promise<{ repo: Repo; tip: string | null }> {
  const tip = readRef(openProjectRepo(projectId), branchRef(branch));
  const repo = initWorkspaceRepo(projectId, workspaceName, branch);
  if (tip) await updateRef(repo, branchRef(branch), tip, null);
  return { repo, tip };
}

/**
 * Makes every object reachable from `oid` in `source` present in `target` (e.g. a workspace's
 * commits into its project before the project's branch moves to them). One `git fetch` spawn.
 */
export async function copyObjects(source: Repo, target: Repo, oid: string): Promise<void> {
  await runGit(
    ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--upload-pack", "git -c uploadpack.allowAnySHA1InWant=true upload-pack", source.gitdir, oid],
    { gitdir: target.gitdir },
  );
}
