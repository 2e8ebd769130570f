import { handleMcpRequest, refuseMcpMethod } from "@/server/mcp";

// MCP Streamable HTTP for agents (contracts/mcp.md): stateless JSON responses, POST only.
export const dynamic = "force-dynamic";

export const POST = handleMcpRequest;
export const GET = refuseMcpMethod;
export const DELETE = refuseMcpMethod;
