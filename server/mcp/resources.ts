import {
  ErrorCode,
  McpError,
  type ReadResourceResult,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { Identity } from "@/server/auth";
import { latestTransition, transitionsOf, watchChange, type Transition } from "@/server/events";
import { registerCache } from "@/server/caches";
import { errorBody, toHttpError } from "@/server/http";
import { MCP_SUBSCRIPTIONS_PER_SESSION } from "@/server/limits";
import { apiCaller } from "./caller";

/** The MCP spec's code for a resource that does not exist (or that the caller may not read). */
const RESOURCE_NOT_FOUND = -32002;
const CHANGE_URI_PREFIX = "svc://changes/";

/** A change as an MCP resource (docs/contracts.md#agents). */
export const changeResourceUri = (changeId: string) => `${CHANGE_URI_PREFIX}${changeId}`;

export const CHANGE_RESOURCE_TEMPLATE: ResourceTemplate = {
  uriTemplate: `${CHANGE_URI_PREFIX}{id}`,
  name: "change",
  title: "A change",
  description:
    "A change as GET /api/changes/{id} answers it; subscribe to be told of each transition (evaluated, reviewed, queued, dequeued, merged, rejected, commented).",
  mimeType: "application/json",
};

function changeIdOf(uri: string): string {
  const id = uri.startsWith(CHANGE_URI_PREFIX) ? uri.slice(CHANGE_URI_PREFIX.length) : "";
  if (!/^[0-9A-Za-z-]{1,100}$/.test(id)) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
  return id;
}

/** A refusal of the REST read as a JSON-RPC error: 404 is the spec's resource-not-found, with the REST status and code as data. */
function resourceError(uri: string, error: unknown): McpError {
  const answered = toHttpError(error);
  const head = answered.code ? `${answered.code} (${answered.status})` : String(answered.status);
  const code =
    answered.status === 404
      ? RESOURCE_NOT_FOUND
      : answered.status < 500
        ? ErrorCode.InvalidRequest
        : ErrorCode.InternalError;
  return new McpError(code, `${head}: ${answered.message}`, { uri, status: answered.status, ...errorBody(answered) });
}

/** The change as GET /api/changes/{id} answers it, through the same procedure (same access rule). */
async function readChange(req: Request, identity: Identity, uri: string) {
  try {
    return await apiCaller(req, identity).changes.get({ id: changeIdOf(uri) });
  } catch (error) {
    throw error instanceof McpError ? error : resourceError(uri, error);
  }
}

export async function readChangeResource(req: Request, identity: Identity, uri: string): Promise<ReadResourceResult> {
  const state = await readChange(req, identity, uri);
  return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(state) }] };
}

// Every session's subscriptions together (each holds a watcher of server/events); on globalThis:
// Next.js loads separate module copies per entry point.
const holder = globalThis as unknown as { __svcMcpSubscriptions?: { live: number } };
const total = (holder.__svcMcpSubscriptions ??= { live: 0 });
registerCache("mcp.subscriptions", {
  entries: () => total.live,
  limit: null,
  bound: "MCP_SUBSCRIPTIONS_PER_SESSION per session (mcp.sessions bounds the sessions); dropped with their session",
});

/** What a session's subscriptions need from it. */
export interface SubscriptionHost {
  /** The session's caller as of now; throws (and ends the session) when its credential is gone. */
  caller(): Promise<{ req: Request; identity: Identity }>;
  notify(uri: string, transition: Transition): Promise<void>;
}

/**
 * A session's `resources/subscribe`s. Each follows its change through server/events (woken at the
 * commit of each transition, on every instance), reads the transitions it has not seen from the
 * outbox and notifies one per transition, re-checking read access each time.
 */
export class ChangeSubscriptions {
  private readonly stops = new Map<string, { stop: () => void }>();

  constructor(
    private readonly host: SubscriptionHost,
    private readonly max = MCP_SUBSCRIPTIONS_PER_SESSION,
  ) {}

  get uris(): string[] {
    return [...this.stops.keys()];
  }

  async subscribe(req: Request, identity: Identity, uri: string): Promise<void> {
    if (this.stops.has(uri)) return;
    const { change } = await readChange(req, identity, uri);
    // Checked after the read's await: subscribes sent together must not all pass a check made before it.
    if (this.stops.has(uri)) return;
    if (this.stops.size >= this.max)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `A session follows at most ${this.max} changes at once: unsubscribe from one first`,
        { uri, limit: this.max },
      );
    const watched = { id: change.id, projectId: change.projectId };
    let cursor: bigint | undefined;
    // Watching before the cursor is read: a transition committed in between is read, not lost.
    let chain: Promise<void> = Promise.resolve();
    const entry = { stop: () => {} };
    const live = () => this.stops.get(uri) === entry;
    entry.stop = watchChange(watched.id, () => {
      chain = chain
        .then(() => (live() ? this.deliver(uri, watched, cursor, live) : cursor))
        .then(
          (seen) => void (cursor = seen),
          () => {
            if (live()) this.unsubscribe(uri);
          },
        );
    });
    this.stops.set(uri, entry);
    total.live += 1;
    chain = chain.then(async () => {
      cursor ??= (await latestTransition(watched))?.seq ?? 0n;
    });
    await chain;
  }

  /**
   * Notifies the transitions after `cursor` while the subscription is `live` (an unsubscribe during
   * the reads below stops it: a transition committed after it is not the session's any more);
   * answers the new cursor. Throws when the change is no longer readable.
   */
  private async deliver(
    uri: string,
    change: { id: string; projectId: string },
    cursor: bigint | undefined,
    live: () => boolean,
  ): Promise<bigint | undefined> {
    if (cursor === undefined) return cursor;
    const { req, identity } = await this.host.caller();
    await readChange(req, identity, uri);
    for (const transition of await transitionsOf(change, cursor)) {
      if (!live()) break;
      await this.host.notify(uri, transition);
      cursor = transition.seq;
    }
    return cursor;
  }

  unsubscribe(uri: string): void {
    const entry = this.stops.get(uri);
    if (!entry) return;
    entry.stop();
    this.stops.delete(uri);
    total.live -= 1;
  }

  closeAll(): void {
    for (const uri of this.uris) this.unsubscribe(uri);
  }
}
