import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { admitRequest } from "@/server/auth";
import { config } from "@/server/config";
import { errorResponse, HttpError, readBodyText, toHttpError } from "@/server/http";
import { MCP_BODY_BYTES_MAX } from "@/server/limits";
import { mcpServerFor } from "./server";

/** Where an MCP client learns which authorization server to ask (RFC 9728). */
export const protectedResourceMetadataUrl = () => `${config.baseUrl}/.well-known/oauth-protected-resource`;

/** A 401 carries the challenge that starts an MCP client's OAuth flow. */
function withChallenge(error: unknown): HttpError {
  const answered = toHttpError(error);
  if (answered.status !== 401) return answered;
  // No credentials is our own HttpError below; a credential the gate refused is a DomainError (RFC 6750 invalid_token).
  const invalidToken = error instanceof HttpError ? "" : ', error="invalid_token"';
  const challenge = `Bearer resource_metadata="${protectedResourceMetadataUrl()}"${invalidToken}`;
  return new HttpError(401, answered.message, answered.code, answered.extra, { ...answered.headers, "WWW-Authenticate": challenge });
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

/**
 * POST /mcp: MCP Streamable HTTP, stateless, JSON responses. The REST gate first (bearer
 * credentials only; the read scope is checked per tool), then the 4 MiB body cap, then one
 * server and transport of the SDK for this request.
 */
export async function handleMcpRequest(req: Request): Promise<Response> {
  let headers: Record<string, string> = {};
  try {
    if (!req.headers.get("authorization")) throw new HttpError(401, "Authentication required");
    const admission = await admitRequest(req, { readScopeByMethod: false });
    headers = admission.headers;
    const body = await parsedBodyOf(req);
    // Invalid JSON goes to the transport as sent, so the SDK answers its own JSON-RPC parse error.
    const forTransport = body.parsed === undefined ? new Request(req.url, { method: "POST", headers: req.headers, body: body.raw }) : req;
    const server = mcpServerFor(withoutQuery(req), admission.identity);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(forTransport, body.parsed === undefined ? undefined : { parsedBody: body.parsed });
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
      return response;
    } finally {
      await server.close();
    }
  } catch (error) {
    return errorResponse(withChallenge(error), headers);
  }
}

/** GET and DELETE /mcp: a stateless server offers no stream and no session to end. */
export function refuseMcpMethod(): Response {
  return Response.json({ error: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
}
