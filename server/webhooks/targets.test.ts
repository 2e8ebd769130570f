import { describe, expect, it } from "vitest";
import { isRefusedAddress } from "./targets";

describe("isRefusedAddress", () => {
  it("refuses loopback, private, link-local, CGNAT, unspecified, multicast, reserved and NAT64 addresses", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "fe80::1",
      "fd00:ec2::254",
      "fc00::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
      "64:ff9b::a9fe:a9fe",
      "not an address",
    ]) {
      expect(isRefusedAddress(address), address).toBe(true);
    }
  });

  it("refuses IPv6 forms that carry a private IPv4 address, and the documentation ranges", () => {
    for (const address of [
      // IPv4-compatible (::a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d)
      "::7f00:1",
      "::127.0.0.1",
      "::a9fe:a9fe",
      "::ffff:0:7f00:1",
      // IPv4-mapped, written in hex
      "::ffff:7f00:1",
      "::ffff:a00:1",
      // 6to4 embedding loopback, metadata, private
      "2002:7f00:1::",
      "2002:a9fe:a9fe::",
      "2002:c0a8:101::1",
      "2002:a00:1:1::5",
      // NAT64 of a private address, Teredo
      "64:ff9b::10.0.0.1",
      "64:ff9b:1::a00:1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      // documentation
      "192.0.2.10",
      "198.51.100.1",
      "203.0.113.7",
      "2001:db8::1",
      "2002:cb00:7107::",
    ]) {
      expect(isRefusedAddress(address), address).toBe(true);
    }
  });

  it("allows public addresses", () => {
    for (const address of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "2002:808:808::1",
      "2001:4860:4860::8888",
      "192.0.3.1",
      "203.0.114.1",
    ]) {
      expect(isRefusedAddress(address), address).toBe(false);
    }
  });
});
