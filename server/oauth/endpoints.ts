import { OAuthError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { resolveIdentity, type Identity } from "@/server/auth";
import { assertSameOrigin, errorResponse, formToObject, parseJsonBody, readBodyText } from "@/server/http";
import { JSON_BODY_BYTES_MAX } from "@/server/limits";
import {
  issueCode,
  parseAuthorizationRequest,
  RedirectedRefusal,
  redirectTo,
  UntrustedAuthorizationRequest,
} from "./authorize";
import { registerClient } from "./clients";
import { consentPage, messagePage, pageHeaders } from "./consent-page";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata";
import { exchangeToken, revokeToken } from "./tokens";

/** Metadata, registration, token and revocation carry no cookie: any origin may call them (browser-based MCP clients). */
const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, Authorization, MCP-Protocol-Version",
};
const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export const corsPreflight = (): Response => new Response(null, { status: 204, headers: CORS });

export const handleAuthorizationServerMetadata = (): Response =>
  Response.json(authorizationServerMetadata(), { headers: CORS });
export const handleProtectedResourceMetadata = (): Response =>
  Response.json(protectedResourceMetadata(), { headers: CORS });

/** OAuth endpoints answer RFC 6749's `{error, error_description}`; our own refusals (413) keep the spec's shape. */
async function oauthJson(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof OAuthError)) return errorResponse(error, CORS);
    const status = error instanceof ServerError ? 500 : error.errorCode === "invalid_client" ? 401 : 400;
    return Response.json(error.toResponseObject(), { status, headers: { ...CORS, ...NO_STORE } });
  }
}

/** Form-encoded (RFC 6749) or JSON parameters. */
async function paramsOf(req: Request): Promise<Record<string, unknown>> {
  const text = await readBodyText(req, JSON_BODY_BYTES_MAX);
  const isForm = (req.headers.get("content-type") ?? "").includes("application/x-www-form-urlencoded");
  return isForm ? formToObject(text) : parseJsonBody(text);
}

/** POST /oauth/register (RFC 7591). */
export const handleRegistration = (req: Request) =>
  oauthJson(async () =>
    Response.json(await registerClient(parseJsonBody(await readBodyText(req, JSON_BODY_BYTES_MAX))), {
      status: 201,
      headers: { ...CORS, ...NO_STORE },
    }),
  );

/** POST /oauth/token: authorization_code (PKCE S256) and refresh_token. */
export const handleToken = (req: Request) =>
  oauthJson(async () => Response.json(await exchangeToken(await paramsOf(req)), { headers: { ...CORS, ...NO_STORE } }));

/** POST /oauth/revoke (RFC 7009): 200 whether or not the token was known. */
export const handleRevocation = (req: Request) =>
  oauthJson(async () => {
    await revokeToken(await paramsOf(req));
    return new Response(null, { status: 200, headers: CORS });
  });

const html = (status: number, body: string, headers: Record<string, string> = pageHeaders()) =>
  new Response(body, { status, headers });

/** The browser session, if this request carries a live one (bearer credentials do not sign anyone in here). */
async function sessionUser(req: Request): Promise<Extract<Identity, { kind: "user" }> | undefined> {
  try {
    const identity = await resolveIdentity(req);
    return identity.kind === "user" && identity.via === "session" ? identity : undefined;
  } catch {
    return undefined;
  }
}

function signInPage(req: Request): Response {
  const back = new URL(req.url);
  const href = `/api/auth/signin?callbackUrl=${encodeURIComponent(back.pathname + back.search)}`;
  return html(
    401,
    messagePage(
      "Sign in to continue",
      "An application asks for access to your account. Sign in first, then come back to this page.",
      { href, text: "Sign in" },
    ),
  );
}

async function answerAuthorization(
  req: Request,
  params: Record<string, string | undefined>,
  decision: "ask" | "allow" | "deny",
): Promise<Response> {
  try {
    const request = await parseAuthorizationRequest(params);
    const user = await sessionUser(req);
    if (!user) return signInPage(req);
    if (decision === "ask") {
      const page = consentPage(request, user.username);
      return html(200, page.html, pageHeaders(page.formAction));
    }
    const answer =
      decision === "allow"
        ? { code: await issueCode(user.userId, request), state: request.state }
        : { error: "access_denied", state: request.state };
    return new Response(null, {
      status: 302,
      headers: { Location: redirectTo(request.redirectUri, answer), "Cache-Control": "no-store" },
    });
  } catch (error) {
    if (error instanceof RedirectedRefusal) {
      return new Response(null, {
        status: 302,
        headers: { Location: redirectTo(error.redirectUri, { error: error.error, state: error.state }) },
      });
    }
    if (error instanceof UntrustedAuthorizationRequest)
      return html(400, messagePage("Invalid authorization request", error.message));
    throw error;
  }
}

const stringFields = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === "string"));

/** GET /oauth/authorize: the consent page for the signed-in user. */
export const handleAuthorizationRequest = (req: Request) =>
  answerAuthorization(req, Object.fromEntries(new URL(req.url).searchParams), "ask");

/** POST /oauth/authorize: the consent form's Allow or Deny, from this site only (CSRF). */
export async function handleConsent(req: Request): Promise<Response> {
  try {
    assertSameOrigin(req);
  } catch {
    return html(403, messagePage("Request refused", "The consent form must be sent from this site."));
  }
  let fields: Record<string, string>;
  try {
    fields = stringFields(formToObject(await readBodyText(req, JSON_BODY_BYTES_MAX)));
  } catch (error) {
    return errorResponse(error);
  }
  const decision = fields.decision === "allow" ? "allow" : "deny";
  return answerAuthorization(req, fields, decision);
}
