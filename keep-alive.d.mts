import type { Server } from "node:http";

/** How long, in seconds, the server keeps an idle client connection open (keep-alive.mjs). */
export const KEEP_ALIVE_SECONDS: number;
/** Applies the keep-alive time to `server`, and answers it. */
export function keepConnectionsAlive<S extends Server>(server: S): S;
