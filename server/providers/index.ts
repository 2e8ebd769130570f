// The area's front door: the hosting provider (GitHub or a GitHub-compatible server).
export {
  classifyRestFailure,
  compareCommits,
  createPullRequest,
  getRepository,
  postCommitStatus,
  postPullRequestComment,
} from "./client";
export type { Comparison, ProviderRepository, PullRequestRef } from "./client";
export {
  FAILURE_CATEGORIES,
  ProviderError,
  classifyGitFailure,
  gitFailureMessage,
  providerRefusal,
  redactCredentials,
} from "./failures";
export type { FailureCategory } from "./failures";
export { providerGitEnv } from "./git-auth";
export { parseSourceUrl, sourceGitUrl } from "./source-url";
export type { SourceRef } from "./source-url";
export { verifyWebhookSignature } from "./webhook-signature";
