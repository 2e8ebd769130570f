import { z } from "zod";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool as ListedTool } from "@modelcontextprotocol/sdk/types.js";
import type { Identity } from "@/server/auth";
import { forbidden } from "@/server/errors";
import { errorBody, noteTool, toHttpError } from "@/server/http";
import { assertStorableArguments } from "./arguments";
import { publishAfterCommit, trackRecordedEvents } from "@/server/events";
import { apiCaller } from "./caller";
import type { Tool } from "./tools";
import { TOOLS } from "./registry";

const SERVER_INFO = { name: "svc-forge", version: "1.0.0" };
const INSTRUCTIONS =
  "A code forge. Read with list_projects, list_files, read_file; contribute with submit_change (workspace, commit, change and evaluation in one call). Projects are named @namespace/slug.";

/** The protocol version 2025-03-26 has no structuredContent: its clients get the JSON as the text. */
const WITHOUT_STRUCTURED_CONTENT = "2025-03-26";

/** Read-scoped credentials (a read token or grant) see and call only read-only tools. */
const canWrite = (identity: Identity) => identity.kind !== "user" || identity.scope === "read_write";

const toolsByName = new Map(TOOLS.map((tool) => [tool.name, tool]));

function listed(tool: Tool): ListedTool {
  const { $schema: _, ...inputSchema } = z.toJSONSchema(tool.input(), { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
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

/** A refusal or failure as a tool error whose text starts with the spec's code (or the status). */
function toolError(error: unknown): CallToolResult {
  const answered = toHttpError(error);
  const head = answered.code ? `${answered.code} (${answered.status})` : String(answered.status);
  return { isError: true, content: [{ type: "text", text: `${head}: ${answered.message}` }], structuredContent: { status: answered.status, ...errorBody(answered) } };
}

async function callTool(req: Request, identity: Identity, tool: Tool, args: Record<string, unknown>, protocolVersion: string | undefined): Promise<CallToolResult> {
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
    return { content: [{ type: "text", text }], structuredContent: result };
  } catch (error) {
    return toolError(error);
  }
}

/** One stateless MCP server for one request, acting as `identity`. */
export function mcpServerFor(req: Request, identity: Identity): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const lists = toolLists();
    return { tools: canWrite(identity) ? lists.all : lists.readOnly };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = toolsByName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const version = extra.requestInfo?.headers["mcp-protocol-version"];
    return callTool(req, identity, tool, request.params.arguments ?? {}, typeof version === "string" ? version : undefined);
  });
  return server;
}
