/**
 * HTML made on the server that a document request sends once (see server-html.tsx): the server
 * component holds it here under an id and the client component's server render takes it; in the
 * browser the same component reads it back from the page and keeps it for later renders of the
 * same tree (the router's back and forward). On globalThis: the server and client layers of Next.js
 * load their own copies of this module. Entries not taken (a render that failed first) go after a minute.
 */
import { registerCache } from "@/server/caches";

/** Set by server.mjs on the framework's own page fetches (its `RSC` header, which pages cannot see). */
export const PAYLOAD_REQUEST_HEADER = "x-svc-payload-request";

const holder = globalThis as unknown as { __svcHeldHtml?: Map<string, string> };
const held = (holder.__svcHeldHtml ??= new Map<string, string>());
const UNTAKEN_MS = 60_000;
registerCache("pages.heldHtml", {
  entries: () => held.size,
  limit: null,
  bound: "taken by the render it was held for, or dropped after a minute (UNTAKEN_MS)",
});

/** Holds `html` for this request's server render; its id. */
export function holdHtml(html: string): string {
  const id = `h-${crypto.randomUUID()}`;
  held.set(id, html);
  setTimeout(() => held.delete(id), UNTAKEN_MS).unref?.();
  return id;
}

/** On the server: the HTML held under `id`, once. In the browser: what the page shows under `id`, kept for later renders. */
export function heldHtml(id: string): string {
  const known = held.get(id);
  if (typeof window === "undefined") {
    held.delete(id);
    return known ?? "";
  }
  if (known !== undefined) return known;
  const shown = document.getElementById(id)?.innerHTML ?? "";
  held.set(id, shown);
  return shown;
}
