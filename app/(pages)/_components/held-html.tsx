"use client";

import { heldHtml } from "../_lib/held-html";

/** HTML the page already shows (server-html.tsx): rendered by the server from the held copy, read back from the page in the browser. */
export function HeldHtml({ id, className }: { id: string; className?: string }) {
  return (
    <div id={id} className={className} dangerouslySetInnerHTML={{ __html: heldHtml(id) }} suppressHydrationWarning />
  );
}
