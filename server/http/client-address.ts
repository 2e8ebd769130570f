import { config } from "@/server/config";

/**
 * The header server.mjs sets to the TCP peer's address after dropping any copy the client sent, so
 * it cannot be forged; absent when the handlers run without that front (tests).
 */
export const PEER_ADDRESS_HEADER = "x-svc-peer-address";

/**
 * The caller's address. Behind a trusted proxy (TRUST_PROXY=1) it is the last X-Forwarded-For
 * entry, the one our proxy appended: the entries before it are whatever the client chose to send.
 */
export function clientAddress(req: Request): string | null {
  if (config.trustProxy) {
    const forwarded = req.headers
      .get("x-forwarded-for")
      ?.split(",")
      .map((part) => part.trim())
      .filter(Boolean);
    if (forwarded?.length) return forwarded[forwarded.length - 1];
  }
  return req.headers.get(PEER_ADDRESS_HEADER) || null;
}
