import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MCP_SESSION_EVENTS_KEPT } from "@/server/limits";

type Kept = { id: number; streamId: string; message: JSONRPCMessage };

/**
 * A session's recent stream messages, so a client whose GET stream dropped gets what it missed by
 * reconnecting with `Last-Event-ID` (the SDK's resumability). Only the session's own notifications
 * pass through here (responses are JSON, not stream events). Bounded: a client further behind than
 * the last MCP_SESSION_EVENTS_KEPT messages gets 400 for its id and reads its resources afresh.
 */
export class SessionEventStore implements EventStore {
  private kept: Kept[] = [];
  private next = 1;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = this.next++;
    this.kept.push({ id, streamId, message });
    if (this.kept.length > MCP_SESSION_EVENTS_KEPT) this.kept.shift();
    return String(id);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.find(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const after = Number(lastEventId);
    // The id was checked by getStreamIdForEventId; if it was dropped since, what is still kept follows it.
    const streamId = this.find(lastEventId)?.streamId ?? this.kept.find((event) => event.id > after)?.streamId;
    if (streamId === undefined) throw new Error("Unknown event id");
    for (const event of this.kept) {
      if (event.id > after && event.streamId === streamId) await send(String(event.id), event.message);
    }
    return streamId;
  }

  private find(eventId: string): Kept | undefined {
    const id = Number(eventId);
    return Number.isSafeInteger(id) ? this.kept.find((event) => event.id === id) : undefined;
  }
}
