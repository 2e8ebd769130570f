import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { registerCache } from "@/server/caches";
import { MCP_SESSION_IDLE_MS, MCP_SESSIONS_PER_CREDENTIAL } from "@/server/limits";
import { SessionEventStore } from "./event-store";

/**
 * MCP sessions of this instance (the SDK's stateful Streamable HTTP transport): what resource
 * subscriptions and their notifications need. A session lives in the memory of the instance that
 * created it; its id means nothing elsewhere (404, and the client starts a new session).
 */
export interface McpSession {
  id: string;
  /** SHA-256 of the Authorization header that opened it: only that credential may use it. */
  credential: string;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  openStreams: number;
}

interface Registry {
  sessions: Map<string, McpSession>;
  sweep?: NodeJS.Timeout;
}

// On globalThis: Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcMcpSessions?: Registry };
const registry: Registry = (holder.__svcMcpSessions ??= { sessions: new Map() });
registerCache("mcp.sessions", {
  entries: () => registry.sessions.size,
  limit: null,
  bound:
    "MCP_SESSIONS_PER_CREDENTIAL per credential; closed after MCP_SESSION_IDLE_MS without a request or an open stream",
});

const SWEEP_EVERY_MS = 60_000;

function sweepIdle(now = Date.now()): void {
  for (const session of registry.sessions.values()) {
    if (session.openStreams === 0 && now - session.lastSeen >= MCP_SESSION_IDLE_MS) void session.transport.close();
  }
}

function register(session: McpSession): void {
  const mine = [...registry.sessions.values()].filter((other) => other.credential === session.credential);
  if (mine.length >= MCP_SESSIONS_PER_CREDENTIAL) {
    const leastRecent = mine.reduce((a, b) => (b.lastSeen < a.lastSeen ? b : a));
    void leastRecent.transport.close();
  }
  registry.sessions.set(session.id, session);
  if (!registry.sweep) {
    registry.sweep = setInterval(sweepIdle, SWEEP_EVERY_MS);
    registry.sweep.unref();
  }
}

function unregister(id: string): void {
  registry.sessions.delete(id);
  if (registry.sessions.size === 0 && registry.sweep) {
    clearInterval(registry.sweep);
    registry.sweep = undefined;
  }
}

/** The session with this id, if it lives here and belongs to this credential. */
export function findSession(id: string, credential: string): McpSession | undefined {
  const session = registry.sessions.get(id);
  if (!session || session.credential !== credential) return undefined;
  session.lastSeen = Date.now();
  return session;
}

/**
 * A transport that becomes a session when its initialize request is answered; `server` is
 * connected to it and closed with it (DELETE, idle, or evicted by the credential's cap).
 */
export async function sessionTransport(
  credential: string,
  server: Server,
): Promise<WebStandardStreamableHTTPServerTransport> {
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    eventStore: new SessionEventStore(),
    onsessioninitialized: (id) => register({ id, credential, transport, lastSeen: Date.now(), openStreams: 0 }),
  });
  await server.connect(transport);
  const closed = server.onclose;
  server.onclose = () => {
    if (transport.sessionId) unregister(transport.sessionId);
    closed?.();
  };
  return transport;
}

/**
 * An SSE comment the stream starts with: Next.js sends a response's headers with its first chunk, so
 * a notification stream with nothing to say yet left its client waiting for them until the first
 * keep-alive (15 s). Clients skip comments.
 */
const STREAM_OPENED = new TextEncoder().encode(": open\n\n");

/** Counts the session's open stream (an open stream keeps it from idling out) until it ends. */
export function trackStream(session: McpSession, response: Response): Response {
  if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  session.openStreams += 1;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    session.openStreams -= 1;
    session.lastSeen = Date.now();
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(STREAM_OPENED);
    },
    async pull(controller) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) {
        end();
        controller.close();
      } else controller.enqueue(next.value);
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
