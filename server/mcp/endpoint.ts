import {
  WebStandardStreamableHTTPServerTransport,
  type HandleRequestOptions,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { admitRequest, hashToken, resolveIdentity } from "@/server/auth";
import { config } from "@/server/config";
import { errorResponse, HttpError, readBodyText, toHttpError } from "@/server/http";
import { MCP_BODY_BYTES_MAX } from "@/server/limits";
import { callInfo, mcpServer, type McpCall } from "./server";
import { ChangeSubscriptions } from "./resources";
import { findSession, sessionTransport, trackStream } from "./sessions";

/** Where an MCP client learns which authorization server to ask (RFC 9728). */
export const protectedResourceMetadataUrl = () => `${config.baseUrl}/.well-known/oauth-protected-resource`;

/** A 401 carries the challenge that starts an MCP client's OAuth flow. */
function withChallenge(error: unknown): HttpError {
  const answered = toHttpError(error);
  if (answered.status !== 401) return answered;
  // No credentials is our own HttpError below; a credential the gate refused is a DomainError (RFC 6750 invalid_token).
  const invalidToken = error instanceof HttpError ? "" : ', error="invalid_token"';
  const challenge = `Bearer resource_metadata="${protectedResourceMetadataUrl()}"${invalidToken}`;
  return new HttpError(401, answered.message, answered.code, answered.extra, {
    ...answered.headers,
    "WWW-Authenticate": challenge,
  });
}

/** The MCP procedures' context must not see /mcp's query string (merge reads force/strategy from it). */
function withoutQuery(req: Request): Request {
  const url = new URL(req.url);
  if (!url.search) return req;
  url.search = "";
  return new Request(url, { method: req.method, headers: req.headers });
}

async function parsedBodyOf(req: Request): Promise<{ parsed?: unknown; raw: string }> {
  const raw = await readBodyText(req, MCP_BODY_BYTES_MAX);
  try {
    return { parsed: JSON.parse(raw), raw };
  } catch {
    return { raw };
  }
}

/** What the transport is handed: the body already read (under the cap), or the raw text for the SDK's own parse error. */
async function forTransport(
  req: Request,
  call: McpCall,
): Promise<{ request: Request; options: HandleRequestOptions; parsed?: unknown }> {
  const options: HandleRequestOptions = { authInfo: callInfo(call) };
  if (req.method !== "POST") return { request: req, options };
  const body = await parsedBodyOf(req);
  if (body.parsed === undefined)
    return { request: new Request(req.url, { method: "POST", headers: req.headers, body: body.raw }), options };
  return { request: req, options: { ...options, parsedBody: body.parsed }, parsed: body.parsed };
}

/** The transport's own answer to an id it does not know (the client then starts a new session). */
const sessionNotFound = () =>
  Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 });

/** One server and transport for this request alone (a client that keeps no session). */
async function statelessAnswer(request: Request, options: HandleRequestOptions): Promise<Response> {
  const server = mcpServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, options);
  } finally {
    await server.close();
  }
}

/**
 * An initialize opens a session: its server keeps the session's resource subscriptions and sends
 * their notifications on the session's GET stream. The credential is resolved again before each
 * notification, so a revoked one ends the session.
 */
async function openSession(
  call: McpCall,
  authorization: string,
  request: Request,
  options: HandleRequestOptions,
): Promise<Response> {
  let transport: WebStandardStreamableHTTPServerTransport | undefined;
  const subscriptions = new ChangeSubscriptions({
    caller: async () => {
      try {
        return {
          req: call.req,
          identity: await resolveIdentity(new Request(call.req.url, { headers: { authorization } })),
        };
      } catch (error) {
        void transport?.close();
        throw error;
      }
    },
    notify: (uri, transition) =>
      server.sendResourceUpdated({
        uri,
        _meta: { "svc-forge/transition": transition.kind, "svc-forge/eventId": transition.id },
      }),
  });
  const server = mcpServer(subscriptions);
  transport = await sessionTransport(hashToken(authorization), server);
  const response = await transport.handleRequest(request, options);
  if (!transport.sessionId) await server.close();
  return response;
}

/**
 * /mcp: MCP Streamable HTTP with JSON responses. The REST gate first (bearer credentials only; the
 * read scope is checked per tool), then the 4 MiB body cap. An initialize opens a session (the
 * SDK's stateful transport; GET is its notification stream, DELETE ends it); a request without
 * Mcp-Session-Id is answered statelessly, as before sessions existed.
 */
export async function handleMcpRequest(req: Request): Promise<Response> {
  let headers: Record<string, string> = {};
  const sessionId = req.headers.get("mcp-session-id");
  if (req.method !== "POST" && !sessionId) return refuseMcpMethod();
  try {
    const authorization = req.headers.get("authorization");
    if (!authorization) throw new HttpError(401, "Authentication required");
    const admission = await admitRequest(req, { readScopeByMethod: false });
    headers = admission.headers;
    const call = { req: withoutQuery(req), identity: admission.identity };
    const { request, options, parsed } = await forTransport(req, call);
    let response: Response;
    if (sessionId) {
      const session = findSession(sessionId, hashToken(authorization));
      response = session
        ? trackStream(session, await session.transport.handleRequest(request, options))
        : sessionNotFound();
    } else if (isInitializeRequest(parsed)) response = await openSession(call, authorization, request, options);
    else response = await statelessAnswer(request, options);
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  } catch (error) {
    return errorResponse(withChallenge(error), headers);
  }
}

/** GET and DELETE /mcp without a session: there is no stream and no session to end. */
function refuseMcpMethod(): Response {
  return Response.json({ error: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
}
