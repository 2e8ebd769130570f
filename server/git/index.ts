// The git layer: bare repositories on disk, objects in-process (isomorphic-git), refs by
// compare-and-swap under a per-project lock. Services import from here.
export * from "./repo";
export * from "./objects";
export * from "./commit";
export * from "./read";
export * from "./refs";
export * from "./fork";
export { withProcessLock, withRepoLock, withRepoLocksHeld } from "./lock";
export { bundleRepository, unbundleRepository, listBundleRefs } from "./bundle";
export { runGit, runGitBytes, spawnGit, spawnGitLater, spawnGitWatched, GitCommandError, type GitOutput } from "./spawn";
export * from "./paths";
export { uniqueMergeBase } from "./merge-base";
export { treeOrderKey } from "./loose";
