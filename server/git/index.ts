// The git layer: bare repositories on disk, objects in-process (isomorphic-git), refs by
// compare-and-swap under a per-repository lock. Services import from here. Refs are read here and
// moved only through the door below (moveBranch, moveTag, commitToBranch, pinRef, pinUnknownRef,
// fetchIntoRef):
// no raw ref writer leaves this area (tests/platform/ref-writers.test.ts).
export * from "./repo";
export { GC_LEAVES_REFS_CONFIG } from "./gc";
export * from "./objects";
export {
  commitToBranch,
  InvalidPathError,
  pathSegments,
  writeCommitFromFiles,
  type CommitInput,
  type CommitMove,
  type CommitToBranchInput,
  type FileMap,
  type RecordMove,
  type Signature,
} from "./commit";
export * from "./read";
export {
  allRefs,
  branchRef,
  isFullOid,
  isValidBranchName,
  listBranches,
  listRefs,
  readRef,
  RefConflictError,
  resolveBranch,
  resolveStartPoint,
  type RefEntry,
} from "./refs";
export * from "./fork";
export { fetchIntoRef } from "./fetch";
export {
  removeProjectReposUnread,
  withProcessLock,
  withRepoLock,
  withRepoLocksHeld,
  withRepositoriesKept,
} from "./lock";
export { bundleRepository, unbundleRepository, listBundleRefs } from "./bundle";
export {
  runGit,
  runGitBytes,
  spawnGit,
  spawnGitWatched,
  streamGit,
  GitCommandError,
  type GitOutput,
  type GitStream,
  type GitStreamOptions,
  type WatchedGitOptions,
} from "./spawn";
export * from "./paths";
export { lastCommitsIn, type LastCommit } from "./last-commits";
export {
  moveBranch,
  moveTag,
  pinRef,
  pinUnknownRef,
  onBranchMove,
  branchMoveHookNames,
  type BranchMove,
  type BranchMoveHook,
  type MoveCause,
  type MoveContext,
  type MoveOptions,
} from "./move";
export { uniqueMergeBase } from "./merge-base";
export { compareTreeEntries, inTreeOrder } from "./loose";
