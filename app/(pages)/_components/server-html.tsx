import { headers } from "next/headers";
import { holdHtml } from "../_lib/held-html";
import { HeldHtml } from "./held-html";

/**
 * Static HTML made on the server (a diff's lines, a file's lines): a server component's output
 * travels twice, in the page's HTML and again in the framework's inline payload (where each `<`
 * and `"` costs six or four characters). On a document request the payload carries only an id,
 * and the browser reads the HTML back from the page (held-html.tsx). The framework's own requests
 * (client navigation, server actions) get the HTML in the payload, as there is no page to read.
 */
export async function ServerHtml({ html, className }: { html: string; className?: string }) {
  const request = await headers();
  if (request.has("rsc") || request.has("next-action")) return <div className={className} dangerouslySetInnerHTML={{ __html: html }} />;
  return <HeldHtml id={holdHtml(html)} className={className} />;
}
