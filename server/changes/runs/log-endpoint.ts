import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { admitRequest } from "@/server/auth";
import { errorResponse, pathSegment } from "@/server/http";
import { cutLine, readLogFrom } from "@/server/runners";
import { readRunLog, tailLines } from "./log";
import { evalRunLog } from "./service";

const encoder = new TextEncoder();
const FINAL = ["passed", "failed", "error", "cancelled"];
/** How often a live log looks for new bytes and for the run's end. */
const FOLLOW_MS = 500;
const STATUS_EVERY = 4;

const tailParam = () => z.coerce.number().int().min(0).max(100_000).optional();

/**
 * GET /api/changes/{id}/evaluations/{runId}/log: the run's setup and command output as text
 * (`?tail=N`: its last N lines, after the cut line when the log's head was cut). With `Accept:
 * text/event-stream`: the log as `log` events (data: the chunk as a JSON string; id: the output
 * offset after it, so a reconnect's Last-Event-ID resumes there) while the run goes, then one `end`
 * event `{status}`. A log past RUNNER_LOG_MB says so in a `truncated` event (data: the runner's
 * line as a JSON string), and a follower or a resume whose offset fell into the cut head gets one
 * before the tail that was kept.
 */
export async function evalRunLogResponse(req: Request): Promise<Response> {
  try {
    const { identity } = await admitRequest(req);
    const url = new URL(req.url);
    const segments = url.pathname.split("/");
    const changeId = pathSegment().parse(segments[3] ?? "");
    const runId = pathSegment().parse(segments[5] ?? "");
    const tail = tailParam().parse(url.searchParams.get("tail") ?? undefined);
    const log = await evalRunLog(identity, changeId, runId);
    if ((req.headers.get("accept") ?? "").includes("text/event-stream")) return follow(req, log);
    const text = readRunLog(log.path).toString("utf8");
    return new Response(tail === undefined ? text : tailOf(text, tail), {
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    });
  } catch (error) {
    return errorResponse(error);
  }
}

/** The last lines, with the cut line in front when they do not reach the head that says it. */
function tailOf(text: string, lines: number): string {
  const kept = tailLines(text, lines);
  const cut = cutLine(text);
  return cut !== null && kept.length < text.length ? cut + kept : kept;
}

const frame = (event: string, data: unknown, id?: number) =>
  encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

function follow(req: Request, log: Awaited<ReturnType<typeof evalRunLog>>): Response {
  const resume = Number.parseInt(req.headers.get("last-event-id") ?? "0", 10);
  let offset = Number.isSafeInteger(resume) && resume > 0 ? resume : 0;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let status = log.status;
      let round = 0;
      let told: string | null = null;
      try {
        while (!req.signal.aborted) {
          const final = FINAL.includes(status);
          const { notice, from, bytes } = readLogFrom(log.path, offset);
          const tell = notice !== null && notice !== told;
          // A cut head is told before the tail that follows it (the offset jumped past the cut part);
          // a log that stopped at its cap, after its last bytes.
          const jumped = from > offset;
          if (tell && jumped) controller.enqueue(frame("truncated", notice, from));
          offset = from;
          // Whole lines while the run writes (a chunk never splits a character); everything at the
          // end, or once the log stopped growing at its cap.
          const cut = final || notice !== null ? bytes.length : bytes.lastIndexOf(0x0a) + 1;
          if (cut > 0) {
            offset += cut;
            controller.enqueue(frame("log", bytes.subarray(0, cut).toString("utf8"), offset));
          }
          if (tell && !jumped) controller.enqueue(frame("truncated", notice, offset));
          if (tell) told = notice;
          if (final) {
            controller.enqueue(frame("end", { status }));
            break;
          }
          await sleep(FOLLOW_MS);
          if (++round % STATUS_EVERY === 0 || round === 1) status = await log.read();
        }
      } catch {
        // The run became unreadable (deleted): the stream ends.
      }
      controller.close();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    },
  });
}
