import { mintToken } from "@/server/auth";
import { db } from "@/server/db";
import { OAUTH_CODE_TTL_SECONDS } from "@/server/limits";
import { findClient, type RegisteredClient } from "./clients";
import { issuer, SCOPES } from "./metadata";

export type Scope = (typeof SCOPES)[number];

/** A validated authorization request: what the consent page shows and its form posts back. */
export interface AuthorizationRequest {
  client: RegisteredClient;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  scope: Scope;
}

/** A request whose client or redirect URI cannot be trusted: answered on our own page, never redirected. */
export class UntrustedAuthorizationRequest extends Error {}

/** A refusal the client hears about at its redirect URI (RFC 6749 4.1.2.1). */
export class RedirectedRefusal extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: string,
    readonly state: string | undefined,
  ) {
    super(error);
  }
}

/** `redirect_uri` with the answer's parameters, `iss` included (RFC 9207). */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...params, iss: issuer() }))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** The highest scope asked for; none asked means read. */
function scopeOf(requested: string | undefined): Scope | undefined {
  const asked = (requested ?? "").split(" ").filter(Boolean);
  if (asked.some((scope) => !(SCOPES as readonly string[]).includes(scope))) return undefined;
  return asked.includes("read_write") ? "read_write" : "read";
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Checks an authorization request (query of GET, fields of the consent form's POST). */
export async function parseAuthorizationRequest(
  params: Record<string, string | undefined>,
): Promise<AuthorizationRequest> {
  const client = await findClient(params.client_id);
  if (!client) throw new UntrustedAuthorizationRequest("Unknown client_id");
  const redirectUri = params.redirect_uri;
  // Required, and compared exactly with a registered URI: no prefix, no normalization.
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    throw new UntrustedAuthorizationRequest("redirect_uri is not registered for this client");
  const state = params.state;
  const refuse = (error: string) => new RedirectedRefusal(redirectUri, error, state);
  if (params.response_type !== "code") throw refuse("unsupported_response_type");
  if (params.code_challenge_method !== "S256" || !S256_CHALLENGE.test(params.code_challenge ?? ""))
    throw refuse("invalid_request");
  const scope = scopeOf(params.scope);
  if (!scope) throw refuse("invalid_scope");
  return { client, redirectUri, state, codeChallenge: params.code_challenge!, scope };
}

/** Issues a one-time authorization code for the signed-in user's consent; stored hashed. */
export async function issueCode(userId: string, request: AuthorizationRequest): Promise<string> {
  const code = mintToken("");
  await (
    await db()
  ).oAuthCode.create({
    data: {
      codeHash: code.hash,
      clientId: request.client.id,
      userId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scope: request.scope,
      expiresAt: new Date(Date.now() + OAUTH_CODE_TTL_SECONDS * 1000),
    },
  });
  return code.plaintext;
}
