import type { paths } from "./schema.js";

/** The JSON of GET /api/changes/{id}: what every event of a change's stream carries. */
export type ChangeState = paths["/api/changes/{id}"]["get"]["responses"][200]["content"]["application/json"];

export interface ChangeEvent {
  /** The outbox event's id (resume point). */
  id: string;
  /** change.state (the first), then change.evaluated, change.reviewed, ..., change.merged or change.rejected. */
  event: string;
  data: ChangeState;
}

export interface WatchChangeOptions {
  baseUrl: string;
  token?: string;
  fetch?: typeof globalThis.fetch;
  /** Called with each event as it arrives. */
  onEvent?: (event: ChangeEvent) => void;
  /** Stop early on this state (e.g. needs_changes); by default only merged or rejected end it. */
  until?: (state: ChangeState) => boolean;
  signal?: AbortSignal;
  /** Wait before reconnecting after a dropped connection (default 1 s). */
  retryMs?: number;
}

const FINAL = new Set(["merged", "rejected"]);

/** Parses SSE blocks out of a growing buffer; answers the events and what is left over. */
function parseBlocks(buffer: string): { events: ChangeEvent[]; rest: string } {
  const events: ChangeEvent[] = [];
  let rest = buffer;
  for (let end = rest.indexOf("\n\n"); end >= 0; end = rest.indexOf("\n\n")) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const fields: Record<string, string> = {};
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
    }
    if (fields.data)
      events.push({
        id: fields.id ?? "",
        event: fields.event ?? "message",
        data: JSON.parse(fields.data) as ChangeState,
      });
  }
  return { events, rest };
}

/**
 * Follows GET /api/changes/{id}/events until the change is merged or rejected (or `until` says
 * stop), reconnecting with Last-Event-ID after a dropped connection, so no transition is missed.
 * Answers the last event. A refusal (401, 404...) throws with the service's `{error, code}`.
 */
export async function watchChange(id: string, options: WatchChangeOptions): Promise<ChangeEvent> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/api/changes/${encodeURIComponent(id)}/events`;
  let lastId: string | undefined;
  let last: ChangeEvent | undefined;
  for (;;) {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (lastId) headers["last-event-id"] = lastId;
    let response: Response;
    try {
      response = await fetchFn(url, { headers, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1000));
      continue;
    }
    if (!response.ok || !response.body) {
      const body = (await response.json().catch(() => ({}))) as { error?: string; code?: string };
      throw Object.assign(new Error(`${response.status} ${body.error ?? response.statusText}`), {
        code: body.code,
        status: response.status,
      });
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        const parsed = parseBlocks(buffer + decoder.decode(chunk.value as Uint8Array, { stream: true }));
        buffer = parsed.rest;
        for (const event of parsed.events) {
          last = event;
          if (event.id) lastId = event.id;
          options.onEvent?.(event);
          // A final state is not the end yet: transitions recorded with it (change.merged after the
          // queue's change.dequeued) still follow, and the service closes the stream after the last.
          if (options.until?.(event.data)) {
            await reader.cancel().catch(() => undefined);
            return event;
          }
        }
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
    }
    // The service ends the stream after merged or rejected; ended without a final state, the
    // connection dropped: resume where it stopped.
    if (last && FINAL.has(last.data.change.status)) return last;
    await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1000));
  }
}
