import dns from "node:dns";
import net from "node:net";
import { config } from "@/server/config";

/**
 * Outbound URL policy (webhooks; reusable by any evaluator that calls out). Unless the operator
 * sets ALLOW_PRIVATE_TARGETS=1, a target is refused when its host is this service's own host or
 * when ANY address it resolves to is loopback, private, link-local (cloud metadata lives at
 * 169.254.169.254 / fd00:ec2::254), carrier-grade NAT, unspecified, multicast, reserved,
 * documentation, or an IPv6 form that carries an IPv4 address (mapped, compatible, translated,
 * 6to4, NAT64, Teredo). Delivery re-checks at connect time (see `guardedLookup`), so a DNS answer
 * that changes after the check cannot smuggle a request to a refused address.
 */
const REFUSED_IPV4 = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const;

const REFUSED_IPV6 = [
  // Unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d (::7f00:1 is 127.0.0.1).
  ["::", 96],
  // IPv4-translated (SIIT) ::ffff:0:a.b.c.d; BlockList maps IPv4-mapped ::ffff:a.b.c.d itself.
  ["::ffff:0:0:0", 96],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  // NAT64 and Teredo: they could reach any IPv4 address, private ones included.
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["2001::", 32],
] as const;

/** The 6to4 prefix (2002::/16) that embeds an IPv4 address in its next 32 bits. */
function sixToFour(address: string): string {
  const [a, b, c, d] = address.split(".").map(Number);
  return `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::`;
}

const refused = new net.BlockList();
for (const [address, prefix] of REFUSED_IPV4) {
  refused.addSubnet(address, prefix, "ipv4");
  refused.addSubnet(sixToFour(address), 16 + prefix, "ipv6");
}
for (const [address, prefix] of REFUSED_IPV6) refused.addSubnet(address, prefix, "ipv6");

export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetRefusedError";
  }
}

export function isRefusedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return refused.check(address, "ipv4");
  if (family === 6) return refused.check(address, "ipv6");
  return true;
}

const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, "").toLowerCase();

/** This service by name, or by any address its BASE_URL host resolves to (another name for the same host). */
async function assertNotSelf(hostname: string, addresses: string[]): Promise<void> {
  const own = bareHost(new URL(config.baseUrl).hostname);
  const itself = () => new TargetRefusedError("The URL points at this service itself");
  if (bareHost(hostname) === own) throw itself();
  const ownAddresses = await resolveAll(own).catch((): string[] => []);
  if (addresses.some((address) => ownAddresses.includes(address))) throw itself();
}

function assertAddresses(hostname: string, addresses: string[]): void {
  const bad = addresses.find(isRefusedAddress);
  if (bad) throw new TargetRefusedError(`${hostname} resolves to ${bad}, a private, loopback or link-local address`);
}

async function resolveAll(hostname: string): Promise<string[]> {
  const host = bareHost(hostname);
  if (net.isIP(host)) return [host];
  try {
    return (await dns.promises.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    throw new TargetRefusedError(`The host ${host} cannot be resolved`);
  }
}

/** Checks a URL's host and every address it resolves to against the outbound policy. */
export async function assertAllowedTarget(url: URL): Promise<void> {
  if (config.allowPrivateTargets) return;
  const addresses = await resolveAll(url.hostname);
  await assertNotSelf(url.hostname, addresses);
  assertAddresses(url.hostname, addresses);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that refuses connections to addresses the policy forbids,
 * checking every address of the answer at connect time.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, entries) => {
    if (error) return callback(error, "");
    try {
      if (!config.allowPrivateTargets)
        assertAddresses(
          hostname,
          entries.map((entry) => entry.address),
        );
    } catch (refusal) {
      return callback(refusal as NodeJS.ErrnoException, "");
    }
    if (options.all) return callback(null, entries);
    callback(null, entries[0].address, entries[0].family);
  });
}
