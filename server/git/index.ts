// The git layer: bare repositories on disk, objects in-process (isomorphic-git), refs by
// compare-and-swap under a per-project lock. Services import from here.
export * from "./repo";
export * from "./objects";
export * from "./commit";
export * from "./read";
export * from "./refs";
export * from "./fork";
export { removeProjectReposUnread, withProcessLock, withRepoLock, withRepoLocksHeld, withRepositoriesKept } from "./lock";
export { bundleRepository, unbundleRepository, listBundleRefs } from "./bundle";
export { runGit, runGitBytes, spawnGit, spawnGitLater, spawnGitWatched, streamGit, GitCommandError, type GitOutput, type GitStream } from "./spawn";
export * from "./paths";
export { moveBranch, onBranchMove, branchMoveHookNames, runMoveHooks, runAfterMoveHooks, type BranchMove, type BranchMoveHook, type MoveCause, type MoveOptions } from "./move";
export { uniqueMergeBase } from "./merge-base";
export { treeOrderKey } from "./loose";
