import { admitRequest, type Identity } from "@/server/auth";
import { registerCache } from "@/server/caches";
import { CHANGE_STREAM_KEEPALIVE_MS } from "@/server/limits";
import { FINAL_TRANSITIONS, transitionPosition, watchChange } from "@/server/events";
import { notFound } from "@/server/errors";
import { errorResponse, pathSegment } from "@/server/http";
import { changeReadOf } from "./service";
import { isUuid } from "./load";
import { readChangeAndLatestTransition, readChangeAndTransitions } from "./read";

const encoder = new TextEncoder();
const FINAL_STATUSES: readonly string[] = ["merged", "rejected"];

/** One SSE frame: `id` is the outbox event's id, so a reconnect's Last-Event-ID resumes after it. */
const frame = (id: string, event: string, data: unknown) =>
  encoder.encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
const KEEPALIVE = encoder.encode(": keep-alive\n\n");

// One timer for every open stream on this instance: an idle stream costs no timer of its own.
const holder = globalThis as unknown as { __svcStreamKeepalive?: { streams: Set<() => void>; timer?: NodeJS.Timeout } };
const keepalive = (holder.__svcStreamKeepalive ??= { streams: new Set() });
registerCache("changes.openStreams", {
  entries: () => keepalive.streams.size,
  limit: null,
  unit: "open event streams",
  bound: "removed when its stream ends (the change merged or was rejected, or the client left)",
});

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
 * GET /api/changes/{id}/events (docs/contracts.md#agents): the change's current state first (as the
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
  if (!isUuid(id)) throw notFound();
  // Cleared before the first read, and subscribed before it: a transition committed while it runs
  // wakes the loop below, which sends what came after `cursor` (clearing it afterwards lost a merge
  // that landed mid-read).
  let pending = false;
  let wakeUp: (() => void) | undefined;
  const unwatch = watchChange(id, () => {
    pending = true;
    wakeUp?.();
  });
  let cursor: bigint;
  let opening: Uint8Array | undefined;
  let ended = false;
  try {
    // The state and the latest transition so far, in one snapshot; the access check reads the project.
    const first = await readChangeAndLatestTransition(id);
    if (!first) throw notFound();
    const state = await changeReadOf(identity, first.state);
    const resumeFrom = req.headers.get("last-event-id");
    const resumed = resumeFrom ? await transitionPosition(first.state.change, resumeFrom.trim()) : null;
    if (resumed !== null) {
      cursor = resumed;
      pending = true;
    } else {
      const { latest } = first;
      cursor = latest?.seq ?? 0n;
      opening = frame(latest?.id ?? id, "change.state", state);
      ended = FINAL_STATUSES.includes(state.change.status);
    }
  } catch (error) {
    unwatch();
    throw error;
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
          // The transitions and the state after all of them, in one snapshot: every frame of the
          // transitions read together (a landing's dequeued and merged) carries it.
          const read = await readChangeAndTransitions(id, cursor);
          if (!read) break;
          if (read.transitions.length === 0) continue;
          const state = await changeReadOf(identity, read.state);
          for (const transition of read.transitions) {
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
  return new Response(stream, {
    status: 200,
    headers: {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    },
  });
}
