import { headers } from "next/headers";
import { holdHtml, PAYLOAD_REQUEST_HEADER } from "../_lib/held-html";
import { HeldHtml } from "./held-html";

/**
 * Static HTML made on the server (a diff's lines, a file's lines): a server component's output
 * travels twice, in the page's HTML and again in the framework's inline payload (where each `<`
 * and `"` costs six or four characters). On a document request the payload carries only an id,
 * and the browser reads the HTML back from the page (held-html.tsx). The framework's own requests
 * (client navigation, server actions) get the HTML in the payload, as there is no page to read.
 */
export async function ServerHtml({ html, className }: { html: string; className?: string }) {
  if (forPayload(await headers())) return <div className={className} dangerouslySetInnerHTML={{ __html: html }} />;
  return <HeldHtml id={holdHtml(html)} className={className} />;
}

/**
 * Whether the page renders for the framework's own fetch rather than a document. Next.js hides its
 * `RSC` header from pages and the proxy, so `server.mjs` marks such requests; the browser's
 * `Sec-Fetch-Dest` tells too (for `next dev`, which has no server.mjs), and a server action says so.
 */
function forPayload(request: Headers): boolean {
  if (request.has(PAYLOAD_REQUEST_HEADER) || request.has("next-action")) return true;
  const destination = request.get("sec-fetch-dest");
  return destination !== null && destination !== "document" && destination !== "iframe";
}
