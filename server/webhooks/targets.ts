import dns from "node:dns";
import net from "node:net";
import { config } from "@/server/config";

/**
 * Outbound URL policy (webhooks; reusable by any evaluator that calls out). Unless the operator
 * sets ALLOW_PRIVATE_TARGETS=1, a target is refused when its host is this service's own host or
 * when ANY address it resolves to is loopback, private, link-local (cloud metadata lives at
 * 169.254.169.254 / fd00:ec2::254), carrier-grade NAT, unspecified, multicast or reserved.
 * Delivery re-checks at connect time (see `guardedLookup`), so a DNS answer that changes after
 * the check cannot smuggle a request to a refused address.
 */
const refused = new net.BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  refused.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  refused.addSubnet(address, prefix, "ipv6");
}

export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetRefusedError";
  }
}

/** IPv4 embedded in NAT64 (64:ff9b::/96) addresses is checked as IPv4; BlockList maps ::ffff:a.b.c.d itself. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^64:ff9b::(?:ffff:)?([0-9.]+)$/i.exec(address);
  return match && net.isIPv4(match[1]) ? match[1] : undefined;
}

export function isRefusedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return refused.check(address, "ipv4");
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    return v4 ? refused.check(v4, "ipv4") : refused.check(address, "ipv6");
  }
  return true;
}

const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, "").toLowerCase();

function assertNotSelf(hostname: string): void {
  const own = bareHost(new URL(config.baseUrl).hostname);
  if (bareHost(hostname) === own) throw new TargetRefusedError("The URL points at this service itself");
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
  assertNotSelf(url.hostname);
  assertAddresses(url.hostname, await resolveAll(url.hostname));
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses connections to addresses the policy forbids,
 * checking every address of the answer at connect time.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, entries) => {
    if (error) return callback(error, "");
    try {
      if (!config.allowPrivateTargets) assertAddresses(hostname, entries.map((entry) => entry.address));
    } catch (refusal) {
      return callback(refusal as NodeJS.ErrnoException, "");
    }
    if (options.all) return callback(null, entries);
    callback(null, entries[0].address, entries[0].family);
  });
}
