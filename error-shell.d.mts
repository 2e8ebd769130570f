import type { IncomingMessage, ServerResponse } from "node:http";

/** Holds a 500 or 404 HTML answer to `req` and sends it amended (see amendShell). */
export function amendErrorShell(req: IncomingMessage, res: ServerResponse): void;
/** A 404 shell: the static not-found page; a 500 shell: with lang and the no-JavaScript page before </body>; any other body unchanged. */
export function amendShell(html: string, status?: number): string;
