import type { Server } from "node:http";

/** How many sockets the server listens on (acceptors.mjs). */
export const ACCEPTORS: number;
/** Listens with `server` on `port` and `host` through ACCEPTORS sockets; resolves once all listen. */
export function listenWithAcceptors(server: Server, options: { port: number; host?: string }): Promise<void>;
