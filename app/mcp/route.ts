import { handleMcpRequest, refuseMcpMethod } from "@/server/mcp";
import { traced } from "@/server/api";

// MCP Streamable HTTP for agents (contracts/mcp.md): stateless JSON responses, POST only.
export const dynamic = "force-dynamic";

export const POST = traced("/mcp", handleMcpRequest);
export const GET = traced("/mcp", refuseMcpMethod);
export const DELETE = traced("/mcp", refuseMcpMethod);
