import { z } from "zod";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type Tool as ListedTool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Identity } from "@/server/auth";
import { forbidden } from "@/server/errors";
import { errorBody, noteTool, toHttpError } from "@/server/http";
import { assertStorableArguments } from "./arguments";
import { publishAfterCommit, trackRecordedEvents } from "@/server/events";
import { apiCaller } from "./caller";
import type { Tool } from "./tools";
import { TOOLS } from "./registry";
import { CHANGE_RESOURCE_TEMPLATE, readChangeResource, type ChangeSubscriptions } from "./resources";

const SERVER_INFO = { name: "svc-forge", version: "1.0.0" };
const INSTRUCTIONS =
  "A code forge. Read with list_projects, list_files, read_file; contribute with submit_change (workspace, commit, change and evaluation in one call). Projects are named @namespace/slug.";

/** The protocol version 2025-03-26 has no structuredContent: its clients get the JSON as the text. */
const WITHOUT_STRUCTURED_CONTENT = "2025-03-26";

/** Read-scoped credentials (a read token or grant) see and call only read-only tools. */
const canWrite = (identity: Identity) => identity.kind !== "user" || identity.scope === "read_write";

const toolsByName = new Map(TOOLS.map((tool) => [tool.name, tool]));

function listed(tool: Tool): ListedTool {
  const { $schema: _, ...inputSchema } = z.toJSONSchema(tool.input(), {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: inputSchema as ListedTool["inputSchema"],
    annotations: { readOnlyHint: tool.readOnly, destructiveHint: tool.destructive, openWorldHint: false },
  };
}

const holder = globalThis as unknown as { __svcMcpToolLists?: { all: ListedTool[]; readOnly: ListedTool[] } };

/** The tools/list answers, built once per process (JSON Schemas from the procedures' zod schemas). */
function toolLists() {
  holder.__svcMcpToolLists ??= (() => {
    const all = TOOLS.map(listed);
    return { all, readOnly: all.filter((tool) => tool.annotations?.readOnlyHint) };
  })();
  return holder.__svcMcpToolLists;
}

/**
 * A refusal or failure as a tool error whose text starts with the spec's code (or the status), and
 * whose `structuredContent` is the REST body with the HTTP `status` (which no field of a refusal's
 * own may replace).
 */
function toolError(error: unknown): CallToolResult {
  const answered = toHttpError(error);
  const head = answered.code ? `${answered.code} (${answered.status})` : String(answered.status);
  return {
    isError: true,
    content: [{ type: "text", text: `${head}: ${answered.message}` }],
    structuredContent: { ...errorBody(answered), status: answered.status },
  };
}

async function callTool(
  req: Request,
  identity: Identity,
  tool: Tool,
  args: Record<string, unknown>,
  protocolVersion: string | undefined,
): Promise<CallToolResult> {
  noteTool(tool.name);
  try {
    assertStorableArguments(args);
    if (!tool.readOnly && !canWrite(identity)) {
      throw forbidden(`${tool.name} writes; this token is scoped to read`, "TOKEN_SCOPE_INSUFFICIENT");
    }
    const { value: result, recorded } = await trackRecordedEvents(() => tool.run(apiCaller(req, identity), args));
    // As on REST: events the call's transactions recorded go out now, not at the next outbox sweep.
    if (recorded) await publishAfterCommit();
    const legacy = (protocolVersion ?? WITHOUT_STRUCTURED_CONTENT) === WITHOUT_STRUCTURED_CONTENT;
    const text = legacy ? JSON.stringify(result) : tool.summarize(result);
    const content: CallToolResult["content"] = [{ type: "text", text }];
    const uri = tool.resource?.(result);
    // 2025-03-26 has no resource_link: its clients get the URI as a second text.
    if (uri)
      content.push(
        legacy
          ? { type: "text", text: uri }
          : { type: "resource_link", uri, name: uri, mimeType: CHANGE_RESOURCE_TEMPLATE.mimeType },
      );
    return { content, structuredContent: result };
  } catch (error) {
    return toolError(error);
  }
}

/** The HTTP request a JSON-RPC message came in, and who sent it (admitted per request, sessions too). */
export interface McpCall {
  req: Request;
  identity: Identity;
}

/** The SDK hands a handler the transport's `authInfo`: ours carries the call (the token itself stays out). */
export const callInfo = (call: McpCall): AuthInfo => ({
  token: "",
  clientId: "svc-forge",
  scopes: [],
  extra: { call },
});

function callOf(extra: { authInfo?: AuthInfo }): McpCall {
  const call = extra.authInfo?.extra?.call as McpCall | undefined;
  if (!call) throw new McpError(ErrorCode.InternalError, "No caller");
  return call;
}

/**
 * An MCP server: the tools, and changes as resources. With `subscriptions` (a session) it also
 * takes resources/subscribe; without (a stateless request) subscribing is refused.
 */
export function mcpServer(subscriptions?: ChangeSubscriptions): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: { subscribe: true } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => {
    const lists = toolLists();
    return { tools: canWrite(callOf(extra).identity) ? lists.all : lists.readOnly };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = toolsByName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const version = extra.requestInfo?.headers["mcp-protocol-version"];
    const { req, identity } = callOf(extra);
    return callTool(
      req,
      identity,
      tool,
      request.params.arguments ?? {},
      typeof version === "string" ? version : undefined,
    );
  });
  // A change is a resource by its id; the list names what this session follows.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [CHANGE_RESOURCE_TEMPLATE],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: (subscriptions?.uris ?? []).map((uri) => ({
      uri,
      name: uri,
      mimeType: CHANGE_RESOURCE_TEMPLATE.mimeType,
    })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
    const { req, identity } = callOf(extra);
    return readChangeResource(req, identity, request.params.uri);
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    if (!subscriptions)
      throw new McpError(
        ErrorCode.InvalidRequest,
        "resources/subscribe needs a session (send initialize without Mcp-Session-Id first)",
      );
    const { req, identity } = callOf(extra);
    await subscriptions.subscribe(req, identity, request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions?.unsubscribe(request.params.uri);
    return {};
  });
  if (subscriptions) server.onclose = () => subscriptions.closeAll();
  return server;
}
