import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { config } from "@/server/config";

/** The scopes a grant can carry: those of the user's API tokens. */
export const SCOPES = ["read", "read_write"] as const;

export const issuer = () => config.baseUrl;

export const endpoints = () => ({
  authorization: `${issuer()}/oauth/authorize`,
  token: `${issuer()}/oauth/token`,
  registration: `${issuer()}/oauth/register`,
  revocation: `${issuer()}/oauth/revoke`,
});

/** RFC 8414, at /.well-known/oauth-authorization-server. */
export function authorizationServerMetadata(): OAuthMetadata {
  const urls = endpoints();
  return {
    issuer: issuer(),
    authorization_endpoint: urls.authorization,
    token_endpoint: urls.token,
    registration_endpoint: urls.registration,
    revocation_endpoint: urls.revocation,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
  };
}

/** RFC 9728, at /.well-known/oauth-protected-resource: /mcp is the resource, this service its server. */
export function protectedResourceMetadata(): OAuthProtectedResourceMetadata {
  return {
    resource: `${issuer()}/mcp`,
    authorization_servers: [issuer()],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "svc-forge MCP",
  };
}
