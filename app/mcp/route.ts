import { handleMcpRequest } from "@/server/mcp";
import { traced } from "@/server/api";

// MCP Streamable HTTP for agents (docs/contracts.md#mcp, docs/agents.md): JSON responses; a session's GET
// stream carries resource notifications, DELETE ends the session.
export const dynamic = "force-dynamic";

export const POST = traced("/mcp", handleMcpRequest);
export const GET = traced("/mcp", handleMcpRequest);
export const DELETE = traced("/mcp", handleMcpRequest);
