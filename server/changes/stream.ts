import { admitRequest, type Identity } from "@/server/auth";
import { CHANGE_STREAM_KEEPALIVE_MS } from "@/server/limits";
import { FINAL_TRANSITIONS, transitionPosition, transitionsOf, watchChange, type Transition } from "@/server/events";
import { errorResponse, pathSegment } from "@/server/http";
import { getChange } from "./service";
import { loadChangeCommits } from "./load";

const encoder = new TextEncoder();
const FINAL_STATUSES: readonly string[] = ["merged", "rejected"];

/** One SSE frame: `id` is the outbox event's id, so a reconnect's Last-Event-ID resumes after it. */
const frame = (id: string, event: string, data: unknown) => encoder.encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
const KEEPALIVE = encoder.encode(": keep-alive\n\n");

// One timer for every open stream on this instance: an idle stream costs no timer of its own.
const holder = globalThis as unknown as { __svcStreamKeepalive?: { streams: Set<() => void>; timer?: NodeJS.Timeout } };
const keepalive = (holder.__svcStreamKeepalive ??= { streams: new Set() });

function keepAlive(ping: () => void): () => void {
  keepalive.streams.add(ping);
  if (!keepalive.timer) {
    keepalive.timer = setInterval(() => {
      for (const send of keepalive.streams) send();
    }, CHANGE_STREAM_KEEPALIVE_MS);
    keepalive.timer.unref();
  }
  return () => {
    keepalive.streams.delete(ping);
    if (keepalive.streams.size === 0 && keepalive.timer) {
      clearInterval(keepalive.timer);
      keepalive.timer = undefined;
    }
  };
}

/**
 * GET /api/changes/{id}/events (contracts/agents.md): the change's current state first (as the
 * event `change.state`, id = its latest transition), then one event per transition, each carrying
 * the same JSON as GET /api/changes/{id}; ends after change.merged or change.rejected. With
 * Last-Event-ID it resumes after that event instead (nothing missed: the outbox is the log).
 * Transitions wake it (server/events change-watch); nothing polls.
 */
export async function changeEventsResponse(req: Request): Promise<Response> {
  try {
    const { identity } = await admitRequest(req);
    const id = pathSegment().parse(new URL(req.url).pathname.split("/")[3] ?? "");
    return await openStream(req, identity, id);
  } catch (error) {
    return errorResponse(error);
  }
}

async function openStream(req: Request, identity: Identity, id: string): Promise<Response> {
  const { change } = await loadChangeCommits(identity, id);
  let pending = true;
  let wakeUp: (() => void) | undefined;
  // Subscribed before anything is read, so a transition committed meanwhile still wakes the stream.
  const unwatch = watchChange(change.id, () => {
    pending = true;
    wakeUp?.();
  });
  const resumeFrom = req.headers.get("last-event-id");
  const resumed = resumeFrom ? await transitionPosition(change, resumeFrom.trim()) : null;
  let cursor: bigint;
  let opening: Uint8Array | undefined;
  let ended = false;
  if (resumed !== null) cursor = resumed;
  else {
    // Cleared before the reads: a transition committed while they run wakes the loop below, which
    // sends what came after `cursor` (clearing it afterwards lost a merge that landed mid-read).
    pending = false;
    const seen = await transitionsOf(change);
    const latest = seen.at(-1);
    cursor = latest?.seq ?? 0n;
    const state = await getChange(identity, change.id);
    opening = frame(latest?.id ?? change.id, "change.state", state);
    ended = FINAL_STATUSES.includes(state.change.status);
  }

  let stopKeepalive: (() => void) | undefined;
  const close = () => {
    unwatch();
    stopKeepalive?.();
    wakeUp?.();
  };
  req.signal.addEventListener("abort", close, { once: true });

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      stopKeepalive = keepAlive(() => controller.enqueue(KEEPALIVE));
      try {
        if (opening) controller.enqueue(opening);
        while (!ended && !req.signal.aborted) {
          if (!pending) await new Promise<void>((resolve) => (wakeUp = resolve));
          if (req.signal.aborted) break;
          pending = false;
          const next: Transition[] = await transitionsOf(change, cursor);
          if (next.length === 0) continue;
          // Read once for the transitions read together (a landing's dequeued and merged): every
          // frame carries the state as of after all of them, as a read per frame would.
          const state = await getChange(identity, change.id);
          for (const transition of next) {
            cursor = transition.seq;
            controller.enqueue(frame(transition.id, transition.kind, state));
            if (FINAL_TRANSITIONS.includes(transition.kind)) ended = true;
          }
        }
      } catch {
        // The change became unreadable (deleted, access gone): the stream ends; a reconnect says why.
      } finally {
        close();
        try {
          controller.close();
        } catch {
          // Already closed by the client going away.
        }
      }
    },
    cancel: close,
  });
  return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", Connection: "keep-alive", "X-Accel-Buffering": "no" } });
}
