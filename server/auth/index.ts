// The area's front door: other areas import from here, never from inside the area.
export { admitRequest } from "./admission";
export type { Admission } from "./admission";
export { createApiToken, listApiTokens, revokeApiToken } from "./api-tokens";
export type { NewToken } from "./api-tokens";
export { forgetUserCredentials } from "./credential-invalidation";
export { handleDevLogin, handleLogout } from "./dev-login-endpoint";
export { actingAgentId, actingIdentity, actingUserId, actorOf, anonymous } from "./identity";
export type { AgentIdentity, Identity, UserIdentity, WorkspaceKeyIdentity } from "./identity";
export { WORKSPACE_KEY_PREFIX, deadKeyReason, onDeadKeyPresented } from "./workspace-keys";
export { attributedTo, currentKeyId } from "./attribution";
export type { KeyRevocationReason } from "./workspace-keys";
export { isUuid } from "./ids";
export { handleAuthRequest } from "./next-auth";
export { AGENT_TOKEN_PREFIX, OAUTH_TOKEN_PREFIX, USER_TOKEN_PREFIX, hashToken, mintToken } from "./tokens";
export { oauthGrantByToken, revokeOAuthGrant, rotateOAuthGrant } from "./oauth-grants";
export { resolveIdentity } from "./resolve";
export {
  createUser,
  findUserById,
  findUserByUsername,
  isNamespaceTaken,
  publicUser,
  publicUserOutput,
  usernameSchema,
  usernameSql,
} from "./users";
export { authMetrics } from "./metrics";
export { assertSameAuthSecret } from "./secret";
