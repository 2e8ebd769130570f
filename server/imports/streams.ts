import { admitRequest, type Identity } from "@/server/auth";
import { assertWellFormedUrl, errorResponse, namespaceSegment, pathSegment } from "@/server/http";
import { SSE_INTERVAL_MS, SYNC_STREAM_LIFETIME_MS } from "@/server/limits";
import { importStatus } from "./service";
import { syncStatus } from "./sync";

type ProjectRef = { namespace: string; slug: string };

/** The `{namespace}/{slug}` of a stream route (`/api/projects/{namespace}/{slug}/<x>/stream`), checked like the REST routes' params. */
function projectRefOf(req: Request): ProjectRef {
  const [namespace = "", slug = ""] = new URL(req.url).pathname.split("/").slice(3, 5);
  return { namespace: namespaceSegment().parse(namespace), slug: pathSegment().parse(slug) };
}

const encoder = new TextEncoder();

/**
 * An SSE response: `next()` is called every 2 seconds and sent as one `data:` line until it says
 * `done`, the client goes away, or `lifetimeMs` passes. The first object is read before answering,
 * so a refusal (401/403/404) is a plain JSON error.
 */
async function sseResponse<T>(
  req: Request,
  next: () => Promise<{ value: T; done: boolean }>,
  lifetimeMs: number | null,
): Promise<Response> {
  const first = await next();
  const deadline = lifetimeMs === null ? Infinity : Date.now() + lifetimeMs;
  let timer: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let current = first;
      for (;;) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(current.value)}\n\n`));
        if (current.done || Date.now() + SSE_INTERVAL_MS > deadline || req.signal.aborted) break;
        await new Promise<void>((resolve) => {
          timer = setTimeout(resolve, SSE_INTERVAL_MS);
          req.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        if (req.signal.aborted) break;
        try {
          current = await next();
        } catch {
          break;
        }
      }
      controller.close();
    },
    cancel() {
      clearTimeout(timer);
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", Connection: "keep-alive" },
  });
}

async function streamFor(
  req: Request,
  open: (identity: Identity, ref: ProjectRef) => Promise<Response>,
): Promise<Response> {
  try {
    // As on REST: a URL that does not decode, or holds a NUL, is refused before anything reads it.
    assertWellFormedUrl(new URL(req.url));
    const { identity } = await admitRequest(req);
    return await open(identity, projectRefOf(req));
  } catch (error) {
    return errorResponse(error);
  }
}

const IMPORT_TERMINAL: readonly string[] = ["completed", "failed", "cancelled"];

/** GET .../import/stream: import progress every 2 s until the import completes, fails or is cancelled. */
export const importStreamResponse = (req: Request) =>
  streamFor(req, (identity, ref) =>
    sseResponse(
      req,
      async () => {
        const value = await importStatus(identity, ref);
        return { value, done: IMPORT_TERMINAL.includes(value.status) };
      },
      null,
    ),
  );

/** GET .../sync/stream: sync status every 2 s until the sync ends; closes after 5 minutes at most. */
export const syncStreamResponse = (req: Request) =>
  streamFor(req, (identity, ref) =>
    sseResponse(
      req,
      async () => {
        const value = await syncStatus(identity, ref, "write");
        return { value, done: value.status !== "queued" && value.status !== "running" };
      },
      SYNC_STREAM_LIFETIME_MS,
    ),
  );
