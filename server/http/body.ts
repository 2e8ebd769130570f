import { JSON_BODY_BYTES_MAX } from "@/server/limits";
import { invalid, tooLarge } from "@/server/errors";

/** Routes that carry file maps get a larger body cap than ordinary JSON routes. */
const LARGE_BODY_ROUTES: Array<{ pattern: RegExp; maxBytes: number }> = [
  { pattern: /^\/api\/workspaces\/[^/]+\/commit$/, maxBytes: 80 * 1024 * 1024 },
  { pattern: /^\/api\/projects\/conflicts\/[^/]+\/resolve$/, maxBytes: 80 * 1024 * 1024 },
  { pattern: /^\/api\/projects$/, maxBytes: 80 * 1024 * 1024 },
];

export function bodyLimitFor(pathname: string): number {
  return LARGE_BODY_ROUTES.find((route) => route.pattern.test(pathname))?.maxBytes ?? JSON_BODY_BYTES_MAX;
}

function assertDeclaredWithin(req: Request, maxBytes: number): void {
  if (Number(req.headers.get("content-length") ?? 0) > maxBytes) throw tooLarge();
}

/**
 * The request's body as a stream that fails with PAYLOAD_TOO_LARGE once more than `maxBytes` have
 * passed (at once when Content-Length declares more): an upload is refused without being buffered.
 */
export function cappedBody(req: Request, maxBytes: number): ReadableStream<Uint8Array> | null {
  assertDeclaredWithin(req, maxBytes);
  if (!req.body) return null;
  let total = 0;
  return req.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) throw tooLarge();
        controller.enqueue(chunk);
      },
    }),
  );
}

/** The whole body as text, refused past `maxBytes` (read directly: this is every JSON request's path). */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  assertDeclaredWithin(req, maxBytes);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Form fields become a JSON object; a field sent twice becomes an array; `true`/`false` stay strings for zod to coerce. */
export function formToObject(text: string): Record<string, unknown> {
  const params = new URLSearchParams(text);
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/** Every JSON body of the interface is an object: an array, number, string or null is refused, never read as `{}`. */
export function parseJsonBody(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid("Request body is not valid JSON", "VALIDATION_ERROR");
  }
  if (!isJsonObject(parsed)) throw invalid("Request body must be a JSON object", "VALIDATION_ERROR");
  return parsed;
}

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
