import crypto from "node:crypto";
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { InvalidClientMetadataError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { db } from "@/server/db";
import { OAUTH_REDIRECT_URI_LENGTH_MAX, OAUTH_REDIRECT_URIS_MAX } from "@/server/limits";

const CLIENT_NAME_MAX = 200;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** Schemes a redirect may never use: they would run or read something in the user's browser. */
const REFUSED_SCHEMES = new Set(["javascript:", "data:", "file:", "blob:", "vbscript:", "about:"]);

export interface RegisteredClient {
  id: string;
  clientId: string;
  name: string;
  redirectUris: string[];
}

/** https anywhere, http only on loopback (RFC 8252 native apps), or a private-use scheme; never a fragment. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > OAUTH_REDIRECT_URI_LENGTH_MAX)
    return `redirect URI longer than ${OAUTH_REDIRECT_URI_LENGTH_MAX} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `not an absolute URL: ${uri}`;
  }
  if (url.hash || uri.includes("#")) return `redirect URI has a fragment: ${uri}`;
  if (REFUSED_SCHEMES.has(url.protocol)) return `redirect URI scheme refused: ${url.protocol}`;
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname))
    return `http redirect URIs must be on loopback: ${uri}`;
  return undefined;
}

/** RFC 7591 dynamic registration of a public client (PKCE, no secret). Answers what was registered. */
export async function registerClient(body: unknown): Promise<OAuthClientInformationFull> {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success)
    throw new InvalidClientMetadataError(
      parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
    );
  const metadata = parsed.data;
  const uris = metadata.redirect_uris;
  if (uris.length === 0 || uris.length > OAUTH_REDIRECT_URIS_MAX)
    throw new InvalidClientMetadataError(`between 1 and ${OAUTH_REDIRECT_URIS_MAX} redirect_uris are required`);
  const problem = uris.map(redirectUriProblem).find(Boolean);
  if (problem) throw new InvalidClientMetadataError(problem);
  if (metadata.grant_types?.some((grant) => grant !== "authorization_code" && grant !== "refresh_token")) {
    throw new InvalidClientMetadataError("grant_types may hold only authorization_code and refresh_token");
  }
  if (metadata.response_types?.some((type) => type !== "code"))
    throw new InvalidClientMetadataError("response_types may hold only code");
  const name = (metadata.client_name ?? "MCP client").slice(0, CLIENT_NAME_MAX).replace(/\u0000/g, "");
  const clientId = `svc_client_${crypto.randomBytes(16).toString("base64url")}`;
  const row = await (await db()).oAuthClient.create({ data: { clientId, name, redirectUris: uris } });
  return {
    client_id: row.clientId,
    client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
    client_name: row.name,
    redirect_uris: row.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** The shape of the ids this server issues (`svc_client_` and 16 random bytes in base64url). */
const CLIENT_ID = /^svc_client_[A-Za-z0-9_-]{22}$/;

/** The registered client, or undefined for anything that is not one of our ids (a NUL never reaches the database). */
export async function findClient(clientId: unknown): Promise<RegisteredClient | undefined> {
  if (typeof clientId !== "string" || !CLIENT_ID.test(clientId)) return undefined;
  return (await (await db()).oAuthClient.findUnique({ where: { clientId } })) ?? undefined;
}
