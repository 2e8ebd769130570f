import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { workspaceRepoPath } from "./paths";
import { initWorkspaceRepo, openProjectRepo, openWorkspaceRepo, removeRepo, type Repo } from "./repo";
import { branchRef, readRef, updateRef } from "./refs";
import { runGit } from "./spawn";

/**
 * Forks a project for a workspace: a bare repository sharing the project's objects through
 * alternates, with `branch` at the project's tip of that branch (absent when the project has none).
 * The fork is built under a staging name and moved into place only after `register` (e.g. the
 * database row) succeeded; if it throws, the staged fork is removed and the error rethrown.
 */
export async function createWorkspaceFork<T>(
  projectId: string,
  workspaceName: string,
  branch: string,
  register: (tip: string | null) => Promise<T>,
): Promise<{ repo: Repo; tip: string | null; registered: T }> {
  const tip = readRef(openProjectRepo(projectId), branchRef(branch));
  const staged = initWorkspaceRepo(projectId, `.staging-${randomBytes(8).toString("hex")}`, branch);
  try {
    if (tip) await updateRef(staged, branchRef(branch), tip, null);
    const registered = await register(tip);
    const final = workspaceRepoPath(projectId, workspaceName);
    fs.rmSync(final, { recursive: true, force: true });
    fs.renameSync(staged.gitdir, final);
    return { repo: openWorkspaceRepo(projectId, workspaceName), tip, registered };
  } catch (error) {
    removeRepo(staged);
    throw error;
  }
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
