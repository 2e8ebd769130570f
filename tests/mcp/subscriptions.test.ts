import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
  type ResourceUpdatedNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { admitRequest } from "@/server/auth";
import { cacheReports } from "@/server/caches";
import { startInvalidationListener } from "@/server/db";
import { ChangeSubscriptions, changeResourceUri } from "@/server/mcp/resources";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { rejectElsewhere } from "@/tests/support/other-instance";
import { useGitServer } from "@/tests/git/support";
import { changeWith, merge, projectWith } from "@/server/changes/test-fixtures";

/** MCP resource subscriptions (docs/contracts.md#agents) with the SDK's own client, over real HTTP. */
const env = useTestEnvironment();
const http = useGitServer();

interface Connected {
  client: Client;
  sessionId: () => string | undefined;
  /** Resolves once the session's GET stream (where notifications arrive) is open. */
  streamOpen: Promise<void>;
  updates: ResourceUpdatedNotification["params"][];
  /** Resolves with the next notification (or after `ms` with null). */
  nextUpdate: (ms?: number) => Promise<ResourceUpdatedNotification["params"] | null>;
}

const opened: Client[] = [];
afterAll(async () => {
  for (const client of opened) await client.close().catch(() => {});
});

async function connect(token: string): Promise<Connected> {
  let streamOpened!: () => void;
  const streamOpen = new Promise<void>((resolve) => (streamOpened = resolve));
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", http.server.baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if ((init?.method ?? "GET") === "GET" && response.ok) streamOpened();
      return response;
    },
  });
  const client = new Client({ name: "svc-subscriber", version: "1.0.0" });
  const updates: ResourceUpdatedNotification["params"][] = [];
  let waiting: ((params: ResourceUpdatedNotification["params"]) => void) | undefined;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params);
    waiting?.(notification.params);
  });
  await client.connect(transport);
  opened.push(client);
  const seen = { count: 0 };
  const nextUpdate = (ms = 20_000) =>
    new Promise<ResourceUpdatedNotification["params"] | null>((resolve) => {
      if (updates.length > seen.count) return resolve(updates[seen.count++]);
      const timer = setTimeout(() => resolve(null), ms);
      waiting = (params) => {
        clearTimeout(timer);
        waiting = undefined;
        seen.count += 1;
        resolve(params);
      };
    });
  await streamOpen;
  return { client, sessionId: () => transport.sessionId, streamOpen, updates, nextUpdate };
}

/** A user's project with an open change, and a session of the user subscribed to it. */
async function subscribedChange() {
  const owner = await createTestUser();
  const project = await projectWith(owner.token, { "README.md": "hi\n" });
  const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
  const uri = `svc://changes/${change.id}`;
  const subscriber = await connect(owner.token);
  await subscriber.client.subscribeResource({ uri });
  return { owner, project, change, uri, subscriber };
}

const readers = new WeakMap<Response, { reader: ReadableStreamDefaultReader<Uint8Array>; buffer: string }>();

const closeStream = (stream: Response) => (readers.get(stream)?.reader ?? stream.body!).cancel();

/** The next Server-Sent Event of `stream` carrying a JSON-RPC `method`, with its id. */
async function nextStreamEvent(stream: Response, method: string): Promise<{ id: string; message: unknown }> {
  if (!readers.has(stream)) readers.set(stream, { reader: stream.body!.getReader(), buffer: "" });
  const state = readers.get(stream)!;
  for (;;) {
    const end = state.buffer.indexOf("\n\n");
    if (end >= 0) {
      const frame = state.buffer.slice(0, end);
      state.buffer = state.buffer.slice(end + 2);
      const field = (name: string) =>
        frame
          .split("\n")
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      const data = field("data");
      const message = data ? JSON.parse(data) : null;
      if (message?.method === method) return { id: field("id") ?? "", message };
      continue;
    }
    const { value, done } = await state.reader.read();
    if (done) throw new Error("The stream ended");
    state.buffer += new TextDecoder().decode(value);
  }
}

const comment = (token: string, changeId: string, body: string) =>
  call("POST", `/api/changes/${changeId}/comments`, { token, body: { body } });

describe("changes as MCP resources", { timeout: 180_000 }, () => {
  it("submit_change names its resource; read answers the REST JSON; templates and capabilities say so", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { client } = await connect(owner.token);
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
    const submitted = (await client.callTool({
      name: "submit_change",
      arguments: { project: project.path, files: { "a.txt": "a\n" }, message: "add a" },
    })) as CallToolResult;
    expect(submitted.isError, JSON.stringify(submitted.content)).toBeFalsy();
    const changeId = (submitted.structuredContent as { change: { id: string } }).change.id;
    const uri = `svc://changes/${changeId}`;
    expect(submitted.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri }));

    const read = await client.readResource({ uri });
    expect(read.contents).toHaveLength(1);
    expect(read.contents[0]).toMatchObject({ uri, mimeType: "application/json" });
    const rest = await call("GET", `/api/changes/${changeId}`, { token: owner.token });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(rest.body);

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["svc://changes/{id}"]);
  });

  it("a subscription notifies each transition until unsubscribed; the list names what the session follows", async () => {
    const { owner, change, uri, subscriber } = await subscribedChange();
    expect((await subscriber.client.listResources()).resources.map((r) => r.uri)).toEqual([uri]);

    expect((await comment(owner.token, change.id, "first")).status).toBe(201);
    expect(await subscriber.nextUpdate()).toMatchObject({ uri, _meta: { "svc-forge/transition": "change.commented" } });

    await subscriber.client.unsubscribeResource({ uri });
    expect((await subscriber.client.listResources()).resources).toEqual([]);
    expect((await comment(owner.token, change.id, "second")).status).toBe(201);
    // Nothing arrives for the unsubscribed change, while another session's subscription still does.
    const other = await connect(owner.token);
    await other.client.subscribeResource({ uri });
    expect((await merge(owner.token, change.id)).status).toBe(200);
    expect(await other.nextUpdate()).toMatchObject({ uri, _meta: { "svc-forge/transition": "change.merged" } });
    expect(subscriber.updates).toHaveLength(1);
  });

  it("an unsubscribe while a delivery reads stops it: what committed after it is not notified", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    const req = new Request(`${http.server.baseUrl}/mcp`, { headers: { authorization: `Bearer ${owner.token}` } });
    const { identity } = await admitRequest(req);
    // The session's side, with the delivery held at its first step until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let delivering!: () => void;
    const started = new Promise<void>((resolve) => (delivering = resolve));
    const notified: string[] = [];
    const subscriptions = new ChangeSubscriptions({
      caller: async () => {
        delivering();
        await held;
        return { req, identity };
      },
      notify: async (_uri, transition) => void notified.push(transition.kind),
    });
    const uri = changeResourceUri(change.id);
    await subscriptions.subscribe(req, identity, uri);
    expect((await comment(owner.token, change.id, "first")).status).toBe(201);
    await started;
    subscriptions.unsubscribe(uri);
    expect((await comment(owner.token, change.id, "second")).status).toBe(201);
    release();
    // Nothing to wait for when nothing is sent: a delivery that went on would have read and sent by then.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(notified).toEqual([]);
  });

  it("a session follows a bounded number of changes: one more is refused until one is let go, and closing gives all back", async () => {
    const owner = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const changes = [];
    for (const file of ["a.txt", "b.txt", "c.txt"])
      changes.push((await changeWith(owner.token, project, { [file]: "x\n" })).change);
    const req = new Request(`${http.server.baseUrl}/mcp`, { headers: { authorization: `Bearer ${owner.token}` } });
    const { identity } = await admitRequest(req);
    const live = () => cacheReports().find((cache) => cache.name === "mcp.subscriptions")!.entries;
    const before = live();
    const subscriptions = new ChangeSubscriptions(
      { caller: async () => ({ req, identity }), notify: async () => {} },
      2,
    );
    const [a, b, c] = changes.map((change) => changeResourceUri(change.id));
    await subscriptions.subscribe(req, identity, a);
    // Two subscribes of one change at once are one subscription.
    await Promise.all([subscriptions.subscribe(req, identity, b), subscriptions.subscribe(req, identity, b)]);
    expect(live()).toBe(before + 2);
    await expect(subscriptions.subscribe(req, identity, c)).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining("at most 2"),
    });
    expect(subscriptions.uris).toEqual([a, b]);
    subscriptions.unsubscribe(a);
    await subscriptions.subscribe(req, identity, c);
    expect(subscriptions.uris).toEqual([b, c]);
    subscriptions.closeAll();
    expect(live()).toBe(before);
  });

  it("a change the caller cannot read is an error to read and to subscribe; a bad URI is not found", async () => {
    const owner = await createTestUser();
    const stranger = await createTestUser();
    const project = await projectWith(owner.token, { "README.md": "hi\n" });
    const { change } = await changeWith(owner.token, project, { "a.txt": "a\n" });
    const { client } = await connect(stranger.token);
    await expect(client.readResource({ uri: `svc://changes/${change.id}` })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining("404"),
    });
    await expect(client.subscribeResource({ uri: `svc://changes/${change.id}` })).rejects.toMatchObject({
      code: -32002,
    });
    await expect(client.readResource({ uri: "svc://projects/x" })).rejects.toMatchObject({ code: -32002 });
    expect((await client.listResources()).resources).toEqual([]);
  });

  it("a client whose stream dropped gets what it missed by reconnecting with Last-Event-ID", async () => {
    const { owner, change, subscriber } = await subscribedChange();
    const sessionId = subscriber.sessionId()!;
    const headers = {
      authorization: `Bearer ${owner.token}`,
      accept: "text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    };
    // The SDK client's own stream is closed so this raw one can stand in for it (one GET stream per session).
    await subscriber.client.transport?.close();
    const updatedOn = async (stream: Response) => {
      const event = await nextStreamEvent(stream, "notifications/resources/updated");
      return {
        id: event.id,
        transition: (event.message as { params: { _meta: Record<string, string> } }).params._meta[
          "svc-forge/transition"
        ],
      };
    };
    const first = await fetch(new URL("/mcp", http.server.baseUrl), { headers });
    expect(first.status).toBe(200);
    expect((await comment(owner.token, change.id, "seen")).status).toBe(201);
    const seen = await updatedOn(first);
    expect(seen.transition).toBe("change.commented");
    await closeStream(first);

    expect((await comment(owner.token, change.id, "missed")).status).toBe(201);
    expect((await merge(owner.token, change.id)).status).toBe(200);
    const resumed = await fetch(new URL("/mcp", http.server.baseUrl), {
      headers: { ...headers, "last-event-id": seen.id },
    });
    expect(resumed.status).toBe(200);
    expect((await updatedOn(resumed)).transition).toBe("change.commented");
    expect((await updatedOn(resumed)).transition).toBe("change.merged");
    await closeStream(resumed);
    const unknown = await fetch(new URL("/mcp", http.server.baseUrl), {
      headers: { ...headers, "last-event-id": "999999" },
    });
    expect(unknown.status).toBe(400);
    await unknown.body?.cancel();
  });

  it("a notification stream opens with a comment, so its client sees it open before any notification", async () => {
    const owner = await createTestUser();
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    const opened = await fetch(new URL("/mcp", http.server.baseUrl), {
      method: "POST",
      headers: {
        authorization: `Bearer ${owner.token}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
      body: JSON.stringify(initialize),
    });
    expect(opened.status).toBe(200);
    await opened.body?.cancel();
    const headers = {
      authorization: `Bearer ${owner.token}`,
      accept: "text/event-stream",
      "mcp-session-id": opened.headers.get("mcp-session-id")!,
      "mcp-protocol-version": "2025-06-18",
    };
    const stream = await fetch(new URL("/mcp", http.server.baseUrl), { headers });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(": open\n\n");
    await reader.cancel();
  });

  it("a session is the credential's: another credential's requests, and ids after DELETE, are 404", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const connected = await connect(owner.token);
    const sessionId = connected.sessionId()!;
    expect(sessionId).toBeTruthy();
    const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
    const headers = {
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    };
    expect((await call("POST", "/mcp", { token: other.token, body: ping, headers })).status).toBe(404);
    expect((await call("POST", "/mcp", { token: owner.token, body: ping, headers })).status).toBe(200);
    expect((await call("DELETE", "/mcp", { token: owner.token, headers })).status).toBe(200);
    expect((await call("POST", "/mcp", { token: owner.token, body: ping, headers })).status).toBe(404);
  });
});

// A transition committed through another connection (as another instance would) reaches the
// subscribed session through the PostgreSQL channel, as it reaches the SSE streams.
describe.runIf(process.env.TEST_DATABASE_URL)(
  "transitions made by other instances (PostgreSQL)",
  { timeout: 180_000 },
  () => {
    let listener: Awaited<ReturnType<typeof startInvalidationListener>>;
    beforeAll(async () => {
      listener = await startInvalidationListener(env.databaseUrl);
    });
    afterAll(async () => {
      await listener?.stop();
    });

    it("a rejection recorded and announced elsewhere is notified", async () => {
      const { project, change, uri, subscriber } = await subscribedChange();
      await rejectElsewhere(env.databaseUrl, { id: change.id, projectId: project.id });
      expect(await subscriber.nextUpdate()).toMatchObject({
        uri,
        _meta: { "svc-forge/transition": "change.rejected" },
      });
      const read = await subscriber.client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text).change.status).toBe("rejected");
    });
  },
);
