import type { IncomingMessage, ServerResponse } from "node:http";

/** Holds a 500 HTML answer to `req` and sends it with the no-JavaScript page added. */
export function amendErrorShell(req: IncomingMessage, res: ServerResponse): void;
/** The shell with the no-JavaScript page before </body>, or the body unchanged when it is not a shell. */
export function withNoScriptPage(html: string): string;
