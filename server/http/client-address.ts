import { config } from "@/server/config";

/**
 * Set by server.mjs from the socket's address (overwriting whatever a client sent), so the
 * anonymous rate limit keys on an address the client cannot choose.
 */
export const CLIENT_ADDRESS_HEADER = "x-svc-client-address";

/** The caller's address: the proxy's X-Forwarded-For when TRUST_PROXY=1, else the socket's. */
export function clientAddress(req: Request): string {
  const forwarded = req.headers.get("x-forwarded-for");
  if (config.trustProxy && forwarded) return forwarded.split(",")[0].trim();
  return req.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
}
