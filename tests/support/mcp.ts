import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fetchInProcess, TEST_ORIGIN } from "./http";

export const MCP_URL = new URL("/mcp", TEST_ORIGIN);

/** The MCP SDK's own client, connected to /mcp through the route handler in-process. */
export async function connectMcp(
  options: { token?: string } & StreamableHTTPClientTransportOptions = {},
): Promise<Client> {
  const { token, ...transportOptions } = options;
  const transport = new StreamableHTTPClientTransport(MCP_URL, {
    fetch: fetchInProcess,
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
    ...transportOptions,
  });
  const client = new Client({ name: "svc-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}
