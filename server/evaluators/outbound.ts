import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { config } from "@/server/config";

function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 6) {
    const lower = address.toLowerCase();
    if (lower.startsWith("::ffff:")) return isPrivateAddress(lower.slice(7));
    return lower === "::1" || lower === "::" || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
  }
  const [a, b] = address.split(".").map(Number);
  return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}

/**
 * Refuses evaluator URLs that resolve to loopback, private or link-local addresses (a policy file
 * must not make the server probe its own network), unless ALLOW_PRIVATE_TARGETS=1.
 */
export async function assertOutboundAllowed(url: string): Promise<void> {
  if (config.allowPrivateTargets) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  if (addresses.some(isPrivateAddress)) throw new Error(`${host} resolves to a private address; set ALLOW_PRIVATE_TARGETS=1 to allow it`);
}
