import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { workspaceRepoPath } from "./paths";
import { initWorkspaceRepo, openProjectRepo, openWorkspaceRepo, type Repo } from "./repo";
import { branchRef, readRef, updateRef } from "./refs";
import { runGit } from "./spawn";

/**
 * Forks a project for a workspace: a bare repository sharing the project's objects through
 * alternates, with `branch` at the project's tip of that branch (absent when the project has none).
 * The fork is built under a staging name; `register` (e.g. the database row's transaction) calls
 * `place` as its transaction's last step, which moves it into place: a backup's snapshot that sees
 * the row finds the repository (without a call, the fork is placed once `register` returns). If
 * `register` throws, the fork is removed, staged or placed, and the error rethrown.
 */
export async function createWorkspaceFork<T>(
  projectId: string,
  workspaceName: string,
  branch: string,
  register: (tip: string | null, place: () => void) => Promise<T>,
): Promise<{ repo: Repo; tip: string | null; registered: T }> {
  const tip = readRef(openProjectRepo(projectId), branchRef(branch));
  const staged = initWorkspaceRepo(projectId, `.staging-${randomBytes(8).toString("hex")}`, branch);
  const final = workspaceRepoPath(projectId, workspaceName);
  let placed = false;
  const place = () => {
    if (placed) return;
    fs.rmSync(final, { recursive: true, force: true });
    fs.renameSync(staged.gitdir, final);
    placed = true;
  };
  try {
    if (tip) await updateRef(staged, branchRef(branch), tip, null);
    const registered = await register(tip, place);
    place();
    return { repo: openWorkspaceRepo(projectId, workspaceName), tip, registered };
  } catch (error) {
    fs.rmSync(placed ? final : staged.gitdir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Makes every object reachable from `oid` in `source` present in `target` (e.g. a workspace's
 * commits into its project before the project's branch moves to them). One `git fetch` spawn.
 */
export async function copyObjects(source: Repo, target: Repo, oid: string): Promise<void> {
  await runGit(
    [
      "fetch",
      "--quiet",
      "--no-tags",
      "--no-write-fetch-head",
      "--upload-pack",
      "git -c uploadpack.allowAnySHA1InWant=true upload-pack",
      source.gitdir,
      oid,
    ],
    { gitdir: target.gitdir },
  );
}
